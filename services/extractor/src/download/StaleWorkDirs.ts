// At start, removes work directories that a killed worker left behind (kill -9 skips every finalizer).
import { readdir, rm, stat } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { ExtractorConfig } from "../ExtractorConfig.ts"

/** Several extractors may share DATA_DIR: only directories older than any run could be are somebody's leftovers. */
const MARGIN_MS = 10 * 60_000

export const removeStaleWorkDirs = Effect.gen(function* () {
  const { workRoot, downloadTimeoutMs, resolveTimeoutMs } = yield* ExtractorConfig
  const cutoff = Date.now() - Math.max(downloadTimeoutMs, resolveTimeoutMs) - MARGIN_MS
  const removed = yield* Effect.promise(async () => {
    const names = await readdir(workRoot).catch(() => [] as Array<string>)
    let count = 0
    for (const name of names) {
      // job_<id>-<delivery>-<random> of download runs, resolve-med_<id> of thumbnail generation; resolve-cookies-<random>
      // of earlier versions, which kept a resolve's cookie copy there (copies now live in cookies/, see CookieCopies).
      if (!/^(job_[a-z2-7]{24}-[0-9]+-[0-9a-f]+|resolve-med_[a-z2-7]{24}|resolve-cookies-[A-Za-z0-9]{6})$/.test(name)) continue
      const path = join(workRoot, name)
      const modified = await stat(path).then(
        (s) => s.mtimeMs,
        () => Number.POSITIVE_INFINITY
      )
      if (modified > cutoff) continue
      await rm(path, { recursive: true, force: true })
      count++
    }
    return count
  })
  if (removed > 0) yield* Effect.logInfo("removed stale work directories", { removed })
})

export const StaleWorkDirs = Layer.effectDiscard(removeStaleWorkDirs)
