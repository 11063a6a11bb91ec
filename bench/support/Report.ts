// Benchmark reporting: medians, and the one table format every benchmark prints (value, reference, ratio, target).

export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export interface Row {
  readonly metric: string
  /** The measured value, already in `unit`. */
  readonly value: number
  readonly unit: string
  /** The reference measured in the same run (bare fastify, raw yt-dlp, curl …), or null when the target is absolute. */
  readonly reference?: { readonly label: string; readonly value: number } | null
  /** Human-readable target, e.g. "≥ 0.6× bare" or "≤ 10 ms". */
  readonly target: string
  /** Whether the target is met; null when the row is informative only. */
  readonly met: boolean | null
}

/** A row whose target is an upper limit in the row's unit ("≤ 120 MB"), with the reference it is shown against, if any. */
export const atMost = (metric: string, value: number, unit: string, limit: number, reference: Row["reference"] = null): Row => ({
  metric,
  value,
  unit,
  reference,
  target: `≤ ${limit} ${unit}`,
  met: value <= limit
})

/** A row whose target is a multiple of a reference measured in the same run: "≤ 2× curl", or strictly below it with "<". */
export const relativeTo = (
  metric: string,
  value: number,
  unit: string,
  reference: { readonly label: string; readonly value: number },
  target: { readonly bound: "≤" | "<"; readonly times: number; readonly of: string }
): Row => ({
  metric,
  value,
  unit,
  reference,
  target: `${target.bound} ${target.times}× ${target.of}`,
  met: target.bound === "≤" ? value <= target.times * reference.value : value < target.times * reference.value
})

const format = (value: number) =>
  !Number.isFinite(value) || Number.isInteger(value)
    ? String(value)
    : Math.abs(value) >= 100
      ? value.toFixed(0)
      : Math.abs(value) >= 10
        ? value.toFixed(1)
        : value.toFixed(2)

export const ratioOf = (row: Row): number | null =>
  row.reference === undefined || row.reference === null || row.reference.value === 0 ? null : row.value / row.reference.value

/** Prints a markdown table (so a run can be pasted into docs/performance.md as it is) and returns whether all targets were met. */
export const printTable = (title: string, rows: ReadonlyArray<Row>): boolean => {
  const lines = [`### ${title}`, "", "| metric | value | reference | ratio | target | met |", "|---|---:|---|---:|---|---|"]
  for (const row of rows) {
    const ratio = ratioOf(row)
    const reference =
      row.reference === undefined || row.reference === null ? "—" : `${row.reference.label}: ${format(row.reference.value)} ${row.unit}`
    const met = row.met === null ? "" : row.met ? "yes" : "**no**"
    lines.push(
      `| ${row.metric} | ${format(row.value)} ${row.unit} | ${reference} | ${ratio === null ? "—" : `${ratio.toFixed(2)}×`} | ${row.target} | ${met} |`
    )
  }
  process.stdout.write(`${lines.join("\n")}\n\n`)
  return rows.every((row) => row.met !== false)
}

/** A plain table for scaling series (e.g. throughput against concurrency). */
export const printSeries = (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>) => {
  const cell = (value: string | number) => (typeof value === "number" ? format(value) : value)
  const lines = [
    `### ${title}`,
    "",
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`)
  ]
  process.stdout.write(`${lines.join("\n")}\n\n`)
}

/** Progress and context go to stderr, so stdout holds only the tables. */
export const note = (message: string) => process.stderr.write(`[bench] ${message}\n`)
