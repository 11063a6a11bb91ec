// Runs the test files that take longest first, so the last minutes of a run are not one long file on one core while
// the other waits: the order comes from the durations a run measured (test/sequence/file-durations.json, written by
// `npm run test:durations` from the last run's report), and vitest's own cache of this checkout where it has one.
import { BaseSequencer, type TestSpecification } from "vitest/node"
import { REPO_ROOT, readFileDurations } from "./FileDurations.ts"

export class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const durations = readFileDurations()
    const cache = this.ctx.cache
    /** Seconds, or null for a file no run measured yet (a new one: it goes first, as it may be long). */
    const secondsOf = (spec: TestSpecification): number | null => {
      const cached = cache.getTestSpecificationResult(spec)
      if (cached !== undefined && cached.duration > 0) return cached.duration / 1000
      return durations.get(spec.moduleId.slice(REPO_ROOT.length + 1)) ?? null
    }
    const seconds = new Map(files.map((spec) => [spec, secondsOf(spec)]))
    return [...files].sort((a, b) => {
      const groups = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder
      if (groups !== 0) return groups
      const sa = seconds.get(a) ?? null
      const sb = seconds.get(b) ?? null
      if (sa === null || sb === null) return sa === null ? (sb === null ? 0 : -1) : 1
      return sb - sa
    })
  }
}
