// The Recall size panel: the chart, its text description for screen readers,
// and the same figures as a table.

import { CHART_SERIES, describeRecallChart, drawRecallChart } from './chart.js';
import { el } from './render.js';

export function createChartPanel($) {
  const chart = $('recall-chart');
  const description = $('chart-description');
  const table = $('chart-table');

  return {
    /** Draws the snapshots played so far on an axis that runs to the conversation's last turn. */
    draw(history, turns) {
      const points = history.map((s) => ({ turn: s.turn, verbatimChars: s.verbatimChars, foldedChars: s.recallChars }));
      const lastTurn = turns.length > 0 ? turns[turns.length - 1].turn : 1;
      drawRecallChart(chart, { points, lastTurn });
      description.textContent = describeRecallChart(points);
      table.replaceChildren(...chartTable(points));
    },
    /** The chart is drawn at its box's pixel width, so a resize redraws it, once per frame at most. */
    redrawOnResize(redraw) {
      let redrawPending = false;
      new ResizeObserver(() => {
        if (redrawPending) return;
        redrawPending = true;
        requestAnimationFrame(() => {
          redrawPending = false;
          redraw();
        });
      }).observe(chart.parentElement);
    },
  };
}

function chartTable(points) {
  return [
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Turn'), CHART_SERIES.map((s) => el('th', { scope: 'col' }, s.label)))),
    el('tbody', {}, points.map((p) => el('tr', {}, el('th', { scope: 'row' }, String(p.turn)), CHART_SERIES.map((s) => el('td', {}, p[s.key].toLocaleString('en')))))),
  ];
}
