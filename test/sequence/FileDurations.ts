// The recorded test file durations (test/sequence/file-durations.json): seconds per file, by path from the repository's
// root. LongestFirst reads them; recordDurations.ts writes them from a run's report.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export const REPO_ROOT = join(import.meta.dirname, "..", "..")
const DURATIONS_FILE = join(REPO_ROOT, "test", "sequence", "file-durations.json")

/** Seconds per file as recorded; a missing or broken record orders nothing. */
export const readFileDurations = (): ReadonlyMap<string, number> => {
  try {
    const parsed: unknown = JSON.parse(readFileSync(DURATIONS_FILE, "utf8"))
    if (typeof parsed !== "object" || parsed === null) return new Map()
    return new Map(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === "number"))
  } catch {
    return new Map()
  }
}

/** Replaces the record, its files in path order (so a new record's diff shows only what moved). */
export const writeFileDurations = (durations: ReadonlyMap<string, number>): void => {
  const sorted = [...durations].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`)
}
