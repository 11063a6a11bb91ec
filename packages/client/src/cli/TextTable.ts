// Plain-text tables for the CLI's listings: each column as wide as its widest cell, the chosen columns aligned right.

/** `rows[0]` is the header; `right` holds the indexes of the columns to align right (numbers). */
export const textTable = (rows: ReadonlyArray<ReadonlyArray<string>>, right: ReadonlySet<number> = new Set()): string => {
  const columns = Math.max(0, ...rows.map((row) => row.length))
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)))
  return rows
    .map((row) =>
      row
        .map((cell, i) => (right.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd()
    )
    .map((line) => `${line}\n`)
    .join("")
}
