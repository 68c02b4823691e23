// What the pages' SVG charts share (ping's round trips, a monitor's response times).

const SVG = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, text) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * The y axis's ticks: about four steps of 1, 2 or 5 times a power of ten, from 0 to the first tick at
 * or above the largest value. Whole steps keep the labels short ("0.01 ms", not "0.0125 ms").
 */
function yTicks(largest) {
  const bound = largest > 0 ? largest : 1;
  const rough = bound / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? 10 * power;
  const steps = Math.max(1, Math.ceil(bound / step - 1e-9));
  return Array.from({ length: steps + 1 }, (_, index) => Number((index * step).toPrecision(12)));
}

export const ms = (value) => `${Number(value.toPrecision(3))} ms`;

/**
 * A chart's frame for values from 0 to `largest`: the y axis's grid lines and labels (`format`),
 * sized to the chart's width as shown (one unit a pixel, so labels keep their size at any width),
 * with a left margin as wide as the widest label as rendered (none is cut off). Returns the parts
 * drawn and the plot's geometry; `y(value)` places a value.
 */
export function chartFrame(chart, largest, format, { height, pad }) {
  const width = Math.max(200, Math.round(chart.getBoundingClientRect().width || 600));
  const ticks = yTicks(largest);
  const top = ticks.at(-1) ?? 1;
  const labels = ticks.map((value) => svg('text', { class: 'axis-label', 'text-anchor': 'end' }, format(value)));
  chart.replaceChildren(...labels);
  // A detached chart measures nothing: an estimate of the font's width then.
  const widest = Math.max(...labels.map((label) => label.getComputedTextLength() || label.textContent.length * 6.5));
  const left = Math.ceil(widest) + 12;
  const plotWidth = width - left - pad.right;
  const plotHeight = height - pad.top - pad.bottom;
  const y = (value) => pad.top + plotHeight - (value / top) * plotHeight;
  chart.setAttribute('viewBox', `0 0 ${width} ${height}`);
  chart.setAttribute('width', String(width));
  chart.setAttribute('height', String(height));
  const parts = [];
  ticks.forEach((value, index) => {
    parts.push(svg('line', { class: 'grid-line', x1: left, x2: width - pad.right, y1: y(value), y2: y(value) }));
    labels[index].setAttribute('x', String(left - 6));
    labels[index].setAttribute('y', String(y(value) + 4));
    parts.push(labels[index]);
  });
  return { parts, width, left, plotWidth, plotHeight, y };
}
