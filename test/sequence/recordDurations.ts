// `npm run test:durations`: writes how long each test file took in the last `npm test` (its JSON report, kept at
// .data/test-report.json) to test/sequence/file-durations.json, the order LongestFirst runs the files in.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const ROOT = join(import.meta.dirname, "..", "..")
const report = process.argv[2] ?? join(ROOT, ".data", "test-report.json")

interface FileResult {
  readonly name: string
  readonly startTime: number
  readonly endTime: number
}

const { testResults } = JSON.parse(readFileSync(report, "utf8")) as { testResults: ReadonlyArray<FileResult> }
const durations = Object.fromEntries(
  testResults
    .map(
      (file) =>
        [
          file.name.startsWith(ROOT) ? file.name.slice(ROOT.length + 1) : file.name,
          Math.round((file.endTime - file.startTime) / 100) / 10
        ] as const
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
)
writeFileSync(join(ROOT, "test", "sequence", "file-durations.json"), `${JSON.stringify(durations, null, 2)}\n`)
console.log(`${Object.keys(durations).length} files recorded from ${report}`)
