import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { capturedExitCode, loadCapturedOutputs } from '../support/captured-output.ts';
import { createFakeSpawner, replayInHalfLines } from '../support/fake-spawner.ts';
import { closedPort } from '../support/fake-whois-server.ts';
import { startMonitorHarness } from './monitor-steps.ts';

/**
 * The ping and mtr monitors' conditions, made true and false by a fake ping and mtr replaying, in
 * half-line chunks, the outputs test/fixtures captured in the namespace network (see its README),
 * the capture chosen between runs; and TCP ping against a loopback port opened and closed.
 *
 * The captured round trips are those of veth pairs, under a millisecond: `avg_ms_over` is tested
 * at 0.055 ms, between two captures' averages (0.048 and 0.062 ms).
 */

const TARGET = '203.0.113.2';
const captures = { ping: loadCapturedOutputs('ping'), mtr: loadCapturedOutputs('mtr') };
type Tool = keyof typeof captures;

describe('ping and mtr monitor conditions, each made true and false by replayed captures', () => {
  const replaying: Record<Tool, string> = { ping: '', mtr: '' };
  const replay = (tool: Tool, scenario: string) => () => {
    replaying[tool] = scenario;
  };
  const fake = createFakeSpawner((child) => {
    const tool = child.command as Tool;
    const capture = captures[tool].find((entry) => entry.scenario === replaying[tool]);
    assert.ok(capture, `${tool}: no capture ${replaying[tool]}`);
    void replayInHalfLines(capture, capturedExitCode(tool, capture.scenario))(child);
  });
  let harness: Awaited<ReturnType<typeof startMonitorHarness>>;

  before(async () => {
    harness = await startMonitorHarness(
      // The captures' documentation-range target, and loopback for TCP ping.
      { ALLOW_PRIVATE_TARGETS: '203.0.113.0/24,127.0.0.1/32' },
      { spawner: fake.spawner },
    );
  });
  after(async () => {
    await harness?.close();
  });

  // Six packets, as the packet-loss capture asked; the two-packet captures end at their own count.
  const ping = (conditions?: object) => ({ type: 'ping', target: TARGET, options: { count: 6 }, conditions });

  it('ping loss_over: every reply is up, a third lost is down', async () => {
    replay('ping', 'ipv4-routed-replies')();
    await harness.follow(ping({ loss_over: 20 }), [
      { state: 'up', cause: null },
      { change: replay('ping', 'ipv4-mixed'), state: 'down', cause: /^33\.33% lost, over 20%$/ },
      { change: replay('ping', 'ipv4-routed-replies'), state: 'up', cause: null },
    ]);
    assert.ok(fake.children.every((child) => child.args.at(-1) === TARGET));
  });

  it('ping avg_ms_over: an average of 0.048 ms is up, 0.062 ms is down', async () => {
    replay('ping', 'ipv4-routed-replies')();
    await harness.follow(ping({ avg_ms_over: 0.055 }), [
      { state: 'up', cause: null },
      { change: replay('ping', 'ipv4-mixed'), state: 'down', cause: /^average 0\.062 ms, over 0\.055 ms$/ },
      { change: replay('ping', 'ipv4-routed-replies'), state: 'up', cause: null },
    ]);
  });

  it('ping without conditions: no reply at all is down, replies are up', async () => {
    replay('ping', 'ipv4-timeouts')();
    const [silent, answering] = await harness.follow(ping(), [
      { state: 'down', cause: /^no reply \(100% lost\)$/ },
      { change: replay('ping', 'ipv4-routed-replies'), state: 'up', cause: null },
      { change: replay('ping', 'ipv4-ttl-exceeded'), state: 'down', cause: /^no reply \(100% lost\)$/ },
    ]);
    // The route says avg_ms 0 without a reply; the run has no response time (it had 0 before).
    assert.equal(silent?.response_ms, null);
    assert.equal(answering?.response_ms, 0.048);
  });

  it('TCP ping without conditions: a closed port is no reply, down; the port open is up', async () => {
    const port = await closedPort();
    const listener = net.createServer((socket) => socket.end());
    try {
      await harness.follow({ type: 'ping', target: '127.0.0.1', options: { protocol: 'tcp', port, count: 1 } }, [
        { state: 'down', cause: /^no reply \(100% lost\)$/ },
        {
          change: () => new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve)),
          state: 'up',
          cause: null,
        },
      ]);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  const mtr = (conditions?: object) => ({ type: 'mtr', target: TARGET, options: { count: 6 }, conditions });

  it('mtr loss_over_at_any_hop: no loss is up, a third lost at every hop is down, a silent hop is down', async () => {
    replay('mtr', 'ipv4-three-hops')();
    await harness.follow(mtr({ loss_over_at_any_hop: 20 }), [
      { state: 'up', cause: null },
      {
        change: replay('mtr', 'ipv4-packet-loss'),
        state: 'down',
        cause: /^hop 1 \(192\.0\.2\.1\) lost 33\.33%, over 20%$/,
      },
      { change: replay('mtr', 'ipv4-three-hops'), state: 'up', cause: null },
      { change: replay('mtr', 'ipv4-silent-hop'), state: 'down', cause: /^hop 2 \(no reply\) lost 100%, over 20%$/ },
    ]);
  });

  it('mtr without conditions: the target not reached is down, reached is up', async () => {
    replay('mtr', 'ipv4-not-reached')();
    await harness.follow(mtr(), [
      { state: 'down', cause: /^the target was not reached$/ },
      { change: replay('mtr', 'ipv4-three-hops'), state: 'up', cause: null },
    ]);
  });
});
