// `npm run test:durations`: writes how long each test file took in the last `npm test` (its JSON report, kept at
// .data/test-report.json) to test/sequence/file-durations.json, the order LongestFirst runs the files in.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { REPO_ROOT, writeFileDurations } from "./FileDurations.ts"

const report = process.argv[2] ?? join(REPO_ROOT, ".data", "test-report.json")

interface FileResult {
  readonly name: string
  readonly startTime: number
  readonly endTime: number
}

const { testResults } = JSON.parse(readFileSync(report, "utf8")) as { testResults: ReadonlyArray<FileResult> }
const durations = new Map(
  testResults.map(
    (file) =>
      [
        file.name.startsWith(REPO_ROOT) ? file.name.slice(REPO_ROOT.length + 1) : file.name,
        Math.round((file.endTime - file.startTime) / 100) / 10
      ] as const
  )
)
writeFileDurations(durations)
console.log(`${durations.size} files recorded from ${report}`)
