import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createPrometheusMetrics } from '../../src/metrics/prometheus.ts';

// The dashboard and the alert rules in deploy/ name metrics by hand: a renamed family would leave
// them showing nothing, silently. Every netinfo_* name they use must be one the service exports.
const exported = new Set(
  createPrometheusMetrics()
    .registry.getMetricsAsArray()
    .map((metric) => metric.name),
);

function namesIn(text: string): Set<string> {
  return new Set([...text.matchAll(/\bnetinfo_[a-z_]+/g)].map((match) => match[0].replace(/_(bucket|sum|count)$/, '')));
}

test('the Grafana dashboard uses only exported metric names, and covers every netinfo family', () => {
  const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/netinfo.json', import.meta.url), 'utf8'));
  const exprs = dashboard.panels.flatMap((panel: { targets: { expr: string }[] }) => panel.targets.map((t) => t.expr));
  const used = namesIn(exprs.join('\n'));
  for (const name of used) assert.ok(exported.has(name), `${name} is not exported`);
  for (const name of exported) if (name.startsWith('netinfo_')) assert.ok(used.has(name), `${name} has no panel`);
});

test('the alert rules use only exported metric names: 5xx, upstream errors, stale data and VRP set, Redis fallback', () => {
  const rules = readFileSync(new URL('../../deploy/prometheus/alerts.yml', import.meta.url), 'utf8');
  const used = namesIn(rules);
  for (const name of used) assert.ok(exported.has(name), `${name} is not exported`);
  for (const alert of [
    'NetinfoHigh5xxRate',
    'NetinfoUpstreamErrors',
    'NetinfoDataStale',
    'NetinfoRpkiStale',
    'NetinfoRedisFallback',
  ]) {
    assert.match(rules, new RegExp(`alert: ${alert}\\n`));
  }
  assert.match(rules, /netinfo_data_age_seconds\) > 7 \* 86400/);
  assert.match(rules, /netinfo_data_age_seconds\{source="rpki"\}\) > 86400/);
});
