// Server-rendered SVG bar charts for the dashboard (no script, no build step): stacked bars per day, with a table twin.
import { type Html, html } from "./Html.ts"

export interface ChartSeries {
  readonly key: string
  readonly label: string
  /** A CSS class naming the series' colour (dashboard.css: .series-<key>). */
  readonly className: string
}

export interface ChartColumn {
  readonly label: string
  /** Value per series key. */
  readonly values: Readonly<Record<string, number>>
}

const WIDTH = 720
const HEIGHT = 200
const LEFT = 64
const BOTTOM = 24
const TOP = 8

/** A round upper bound for the axis: 1, 2, 5 × 10^n at or above the largest column. */
export const axisMax = (largest: number): number => {
  if (largest <= 0) return 1
  const magnitude = 10 ** Math.floor(Math.log10(largest))
  return ([1, 2, 5, 10].map((step) => step * magnitude).find((bound) => bound >= largest) ?? 10 * magnitude) as number
}

/** The same in binary byte units (KB, MB, GB): the axis then reads 1 GB rather than 954 MB. */
export const byteAxisMax = (largest: number): number => {
  if (largest <= 0) return 1
  const unit = 1024 ** Math.min(4, Math.floor(Math.log(largest) / Math.log(1024)))
  return unit * axisMax(largest / unit)
}

/**
 * Columns of stacked bars, one per day, with a y axis (0, half, max) and every seventh label on the x axis. Each bar
 * segment carries a <title> for hover, and the chart names itself for screen readers; the page shows the same
 * numbers as a table too.
 */
export const stackedBarChart = (options: {
  readonly title: string
  readonly series: ReadonlyArray<ChartSeries>
  readonly columns: ReadonlyArray<ChartColumn>
  readonly format: (value: number) => string
  /** The axis' upper bound for the largest column (default `axisMax`; bytes use `byteAxisMax`). */
  readonly niceMax?: (largest: number) => number
}): Html => {
  const { columns, series } = options
  const totals = columns.map((column) => series.reduce((sum, s) => sum + (column.values[s.key] ?? 0), 0))
  const max = (options.niceMax ?? axisMax)(Math.max(0, ...totals))
  const plotWidth = WIDTH - LEFT - 8
  const plotHeight = HEIGHT - TOP - BOTTOM
  const slot = plotWidth / Math.max(1, columns.length)
  const barWidth = Math.max(2, slot * 0.7)
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight
  const bars = columns.map((column, i) => {
    const x = LEFT + i * slot + (slot - barWidth) / 2
    let base = 0
    const segments = series.map((s) => {
      const value = column.values[s.key] ?? 0
      if (value <= 0) return ""
      const top = y(base + value)
      const height = y(base) - top
      base += value
      return html`<rect class="${s.className}" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}"><title>${column.label}: ${options.format(value)} ${s.label}</title></rect>`
    })
    // Every seventh day, and the last one unless it would run into the one before.
    const last = columns.length - 1
    const label =
      i % 7 === 0 || (i === last && last % 7 >= 3)
        ? html`<text class="axis" x="${(x + barWidth / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${column.label.slice(5)}</text>`
        : ""
    return html`<g>${segments}${label}</g>`
  })
  const ticks = [0, max / 2, max].map(
    (value) =>
      html`<line class="grid" x1="${LEFT}" x2="${WIDTH - 8}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"></line><text class="axis" x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${options.format(value)}</text>`
  )
  const legend = html`<ul class="legend">${series.map((s) => html`<li><span class="swatch ${s.className}"></span>${s.label}</li>`)}</ul>`
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${options.title}" preserveAspectRatio="xMidYMid meet">${ticks}${bars}</svg>
<figcaption>${options.title}</figcaption>
${legend}
</figure>`
}
