// The recall-size chart: characters of recall per turn, verbatim against folded.
// Drawn as SVG at the container's real pixel width (redrawn on resize), so the
// axis text stays at a readable size on a phone instead of being scaled down.

const SVG_NS = 'http://www.w3.org/2000/svg';
const MARGIN = { top: 14, right: 14, bottom: 34, left: 52 };
const SERIES = [
  { key: 'verbatimChars', name: 'verbatim', label: 'Verbatim (no summarize stage)' },
  { key: 'foldedChars', name: 'folded', label: 'Folded (recall after the stage)' },
];

export const CHART_SERIES = SERIES;

/**
 * @param {SVGSVGElement} svg
 * @param {{ points: Array<{turn:number, verbatimChars:number, foldedChars:number}>, lastTurn: number }} data
 */
export function drawRecallChart(svg, { points, lastTurn }) {
  const width = Math.max(260, Math.round(svg.parentElement.clientWidth));
  const height = Math.round(Math.min(280, Math.max(190, width * 0.42)));
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));

  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const firstTurn = points.length > 0 ? Math.min(points[0].turn, 1) : 1;
  const turnSpan = Math.max(1, Math.max(lastTurn, firstTurn + 1) - firstTurn);
  const largest = Math.max(0, ...points.flatMap((p) => [p.verbatimChars, p.foldedChars]));
  const yTicks = niceTicks(largest);
  const yMax = yTicks[yTicks.length - 1];
  const x = (turn) => MARGIN.left + ((turn - firstTurn) / turnSpan) * plotWidth;
  const y = (chars) => MARGIN.top + plotHeight - (chars / yMax) * plotHeight;

  const axes = add(svg, 'g', { class: 'chart-axes' });
  for (const tick of yTicks) {
    add(axes, 'line', { class: 'chart-grid', x1: MARGIN.left, x2: width - MARGIN.right, y1: y(tick), y2: y(tick) });
    add(axes, 'text', { class: 'chart-tick', x: MARGIN.left - 8, y: y(tick), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, formatChars(tick));
  }
  const turnStep = plotWidth / turnSpan >= 24 ? 2 : plotWidth / turnSpan >= 11 ? 5 : 10;
  for (let turn = firstTurn; turn <= firstTurn + turnSpan; turn += 1) {
    if (turn !== firstTurn && turn % turnStep !== 0) continue;
    add(axes, 'text', { class: 'chart-tick', x: x(turn), y: height - MARGIN.bottom + 16, 'text-anchor': 'middle' }, String(turn));
  }
  add(axes, 'line', { class: 'chart-axis', x1: MARGIN.left, x2: width - MARGIN.right, y1: y(0), y2: y(0) });
  add(axes, 'text', { class: 'chart-axis-label', x: MARGIN.left + plotWidth / 2, y: height - 4, 'text-anchor': 'middle' }, 'turn');

  if (points.length === 0) {
    add(svg, 'text', { class: 'chart-empty', x: MARGIN.left + plotWidth / 2, y: MARGIN.top + plotHeight / 2, 'text-anchor': 'middle' }, 'Step a turn to start the chart');
  }
  for (const series of SERIES) {
    const group = add(svg, 'g', { class: `chart-series chart-series-${series.name}`, 'data-series': series.name });
    if (points.length > 1) {
      add(group, 'polyline', { points: points.map((p) => `${x(p.turn)},${y(p[series.key])}`).join(' ') });
    }
    for (const point of points) {
      const dot = add(group, 'circle', { cx: x(point.turn), cy: y(point[series.key]), r: 3.5, 'data-turn': point.turn });
      add(dot, 'title', {}, `Turn ${point.turn}: ${point[series.key].toLocaleString('en')} characters ${series.name}`);
    }
  }
}

/** A plain-text description for the chart's accessible name. */
export function describeRecallChart(points) {
  if (points.length === 0) return 'Recall size per turn: no turns played yet.';
  const last = points[points.length - 1];
  return (
    `Recall size per turn, ${points.length} turn${points.length === 1 ? '' : 's'} played. ` +
    `Turn ${last.turn}: ${last.verbatimChars.toLocaleString('en')} characters verbatim, ` +
    `${last.foldedChars.toLocaleString('en')} characters folded.`
  );
}

function niceTicks(largest) {
  if (largest <= 0) return [0, 1000];
  const rough = largest / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * magnitude).find((s) => s >= rough);
  const ticks = [];
  for (let tick = 0; tick < largest + step; tick += step) ticks.push(tick);
  if (ticks[ticks.length - 1] < largest) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
}

function formatChars(chars) {
  if (chars === 0) return '0';
  return chars >= 1000 ? `${Number((chars / 1000).toFixed(1))}k` : String(chars);
}

function add(parent, tag, attributes, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  parent.appendChild(node);
  return node;
}
