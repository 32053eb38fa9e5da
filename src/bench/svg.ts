// Small inline-SVG charts for the HTML bench report: horizontal rows on a shared linear axis (latency
// distributions, bars with intervals), written as strings so the page needs no script or asset.

/** Escapes text for HTML and SVG content and attribute values. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A round number ≥ `x` (1, 2, 2.5 or 5 × a power of ten), for an axis end. */
export function niceCeil(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x * 0.999) return m * p;
  return 10 * p;
}

/** Axis ticks from 0 to `max` (a niceCeil value): 4 or 5 steps. */
export function ticks(max: number): number[] {
  const step = niceCeil(max / 5);
  const out: number[] = [];
  for (let v = 0; v <= max * 1.0001; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}

/** Log-axis ticks between `lo` and `hi`: 1, 2 and 5 times each power of ten in range. */
export function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = Number((m * 10 ** e).toPrecision(6));
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  }
  return out;
}

/** One row of a chart: a label on the left, marks on the axis, text on the right. */
export interface Row {
  label: string;
  color: string;
  /** Whisker from→to (e.g. min→p99, or a 95 % interval). */
  whisker?: [number, number];
  /** Box or bar from→to (p50→p95, or 0→value). */
  box?: [number, number];
  /** A dot (the median). */
  dot?: number;
  /** Short vertical marks (p99). */
  marks?: number[];
  note: string;
}

export interface ChartOptions {
  /** Axis unit, after the tick labels' row. */
  unit: string;
  /**
   * `log` spreads values of different magnitudes (a median of 0.2 ms beside a p99 of 20 ms); the axis
   * then spans the values drawn, from a power-of-ten multiple of 1, 2 or 5 below them.
   */
  scale?: 'linear' | 'log';
  /** Fixed axis end; by default the largest value drawn, rounded up. */
  max?: number;
  /** A dashed vertical line with its caption (a limit or a target). */
  rule?: { at: number; caption: string };
}

const LABEL_W = 220;
const PLOT_W = 380;
const NOTE_W = 300;
const ROW_H = 24;
const AXIS_H = 30;

/** Horizontal rows on one linear axis from 0, as an `<svg>` element. */
export function rowChart(rows: readonly Row[], options: ChartOptions): string {
  const largest = Math.max(0, ...rows.flatMap((r) => [...(r.whisker ?? []), ...(r.box ?? []), r.dot ?? 0, ...(r.marks ?? [])]), options.rule?.at ?? 0);
  const max = options.max ?? niceCeil(largest);
  const log = options.scale === 'log';
  const positive = rows.flatMap((r) => [...(r.whisker ?? []), ...(r.box ?? []), r.dot ?? 0, ...(r.marks ?? [])]).filter((v) => v > 0);
  const min = log ? niceFloor(Math.min(max / 10, ...positive)) : 0;
  const x = log
    ? (v: number): number => LABEL_W + (Math.log10(Math.min(Math.max(v, min), max) / min) / Math.log10(max / min)) * PLOT_W
    : (v: number): number => LABEL_W + (Math.min(Math.max(v, 0), max) / max) * PLOT_W;
  const height = rows.length * ROW_H + AXIS_H;
  const parts: string[] = [];
  for (const t of log ? logTicks(min, max) : ticks(max)) {
    parts.push(`<line x1="${x(t)}" y1="0" x2="${x(t)}" y2="${rows.length * ROW_H}" class="grid"/>`);
    parts.push(`<text x="${x(t)}" y="${rows.length * ROW_H + 14}" class="tick">${esc(formatTick(t))}</text>`);
  }
  parts.push(`<text x="${LABEL_W + PLOT_W}" y="${rows.length * ROW_H + 27}" class="unit">${esc(options.unit)}</text>`);
  rows.forEach((r, i) => {
    const mid = i * ROW_H + ROW_H / 2;
    parts.push(`<text x="${LABEL_W - 8}" y="${mid + 4}" class="label">${esc(r.label)}</text>`);
    if (r.whisker !== undefined) {
      parts.push(`<line x1="${x(r.whisker[0])}" y1="${mid}" x2="${x(r.whisker[1])}" y2="${mid}" stroke="${r.color}" class="whisker"/>`);
      for (const end of r.whisker) parts.push(`<line x1="${x(end)}" y1="${mid - 4}" x2="${x(end)}" y2="${mid + 4}" stroke="${r.color}" class="whisker"/>`);
    }
    if (r.box !== undefined) {
      const w = Math.max(1, x(r.box[1]) - x(r.box[0]));
      parts.push(`<rect x="${x(r.box[0])}" y="${mid - 7}" width="${w}" height="14" fill="${r.color}" class="box"/>`);
    }
    for (const m of r.marks ?? []) parts.push(`<line x1="${x(m)}" y1="${mid - 8}" x2="${x(m)}" y2="${mid + 8}" stroke="${r.color}" class="mark"/>`);
    if (r.dot !== undefined) parts.push(`<circle cx="${x(r.dot)}" cy="${mid}" r="4.5" fill="${r.color}" class="dot"/>`);
    parts.push(`<text x="${LABEL_W + PLOT_W + 10}" y="${mid + 4}" class="note">${esc(r.note)}</text>`);
  });
  if (options.rule !== undefined && options.rule.at <= max) {
    const rx = x(options.rule.at);
    parts.push(`<line x1="${rx}" y1="0" x2="${rx}" y2="${rows.length * ROW_H}" class="rule"/>`);
    parts.push(`<text x="${rx + 3}" y="${rows.length * ROW_H + 27}" class="rule-caption">${esc(options.rule.caption)}</text>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + PLOT_W + NOTE_W}" height="${height}" viewBox="0 0 ${LABEL_W + PLOT_W + NOTE_W} ${height}" role="img">${parts.join('')}</svg>`;
}

/** A 1, 2 or 5 times a power of ten ≤ `x`. */
function niceFloor(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [5, 2, 1]) if (m * p <= x * 1.001) return m * p;
  return p;
}

function formatTick(v: number): string {
  return v === 0 ? '0' : Math.abs(v) < 0.01 ? v.toExponential(0) : String(Number(v.toPrecision(3)));
}
