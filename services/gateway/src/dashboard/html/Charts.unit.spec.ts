// The dashboard's SVG charts: axis bounds, stacked segments in order, and escaped labels.
import { describe, expect, it } from "vitest"
import { axisMax, byteAxisMax, stackedBarChart } from "./Charts.ts"

describe("axisMax", () => {
  it.each([
    [0, 1],
    [3, 5],
    [7, 10],
    [120, 200],
    [500, 500]
  ])("%d -> %d", (largest, bound) => expect(axisMax(largest)).toBe(bound))
})

describe("byteAxisMax", () => {
  it("rounds to binary units", () => {
    expect(byteAxisMax(700 * 1024 ** 2)).toBe(1000 * 1024 ** 2)
    expect(byteAxisMax(1.5 * 1024 ** 3)).toBe(2 * 1024 ** 3)
    expect(byteAxisMax(0)).toBe(1)
  })
})

describe("stackedBarChart", () => {
  const chart = stackedBarChart({
    title: "Jobs <per> day",
    series: [
      { key: "a", label: "completed", className: "series-completed" },
      { key: "b", label: "failed", className: "series-failed" }
    ],
    columns: [
      { label: "2026-11-20", values: { a: 6, b: 4 } },
      { label: "2026-11-21", values: { a: 0, b: 2 } }
    ],
    format: String
  }).value

  it("draws one segment per non-zero value, the first series at the bottom", () => {
    const rects = [...chart.matchAll(/<rect class="([^"]+)" x="[^"]+" y="([^"]+)" width="[^"]+" height="([^"]+)">/g)]
    expect(rects.map((m) => m[1])).toEqual(["series-completed", "series-failed", "series-failed"])
    const [completed, failed] = rects
    // Stacked: the failed segment of day one sits right on top of the completed one (10 of a 10 axis).
    expect(Number(failed?.[2]) + Number(failed?.[3])).toBeCloseTo(Number(completed?.[2]), 1)
    expect(chart).toContain("<title>2026-11-20: 6 completed</title>")
  })
  it("names the chart for screen readers, escaped", () => expect(chart).toContain('aria-label="Jobs &lt;per&gt; day"'))
})
