// The one folder where plaintext copies of project cookies live while runs use them, and the sweep that removes the copies no live extractor owns.
import { createHash, randomBytes } from "node:crypto"
import { mkdir, readdir, readFile, readlink, rm, stat, utimes } from "node:fs/promises"
import { join } from "node:path"
import { Clock, Context, Effect, Layer, Schedule } from "effect"
import { ExtractorConfig } from "../ExtractorConfig.ts"

/** Under the work root; nothing but cookie copies lives here. */
export const COOKIE_COPIES_DIR = "cookies"
/** How often an extractor marks its folder as alive and sweeps the others'. */
export const COOKIE_SWEEP_INTERVAL_MS = 10_000
/** A folder whose owner cannot be asked directly (another host or PID namespace) is abandoned once untouched this long. */
export const COOKIE_OWNER_STALE_MS = 6 * COOKIE_SWEEP_INTERVAL_MS

/**
 * One kernel boot and PID namespace: within it a pid plus its start time names one process for good. Null where /proc
 * cannot tell (not Linux): folders are then judged by their heartbeat alone.
 */
const hostKey = Effect.promise(async () => {
  const boot = await readFile("/proc/sys/kernel/random/boot_id", "utf8").catch(() => null)
  const namespace = await readlink("/proc/self/ns/pid").catch(() => null)
  if (boot === null || namespace === null) return null
  return createHash("sha256").update(`${boot.trim()} ${namespace}`).digest("hex").slice(0, 16)
})

/** When the process started (field 22 of /proc/<pid>/stat, clock ticks since boot); null when there is no such process. */
const startOf = (pid: number) =>
  readFile(`/proc/${pid}/stat`, "utf8").then(
    (stat) => stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null,
    () => null
  )

/** `<host key>-<pid>-<start>`, or `x-<pid>-<random>` where /proc cannot tell. */
const OWNER_FOLDER = /^([0-9a-f]{16}|x)-([0-9]+)-([0-9a-z]+)$/

const ownFolderName = Effect.gen(function* () {
  const host = yield* hostKey
  const start = host === null ? null : yield* Effect.promise(() => startOf(process.pid))
  return host === null || start === null ? `x-${process.pid}-${randomBytes(6).toString("hex")}` : `${host}-${process.pid}-${start}`
})

/**
 * Whether the folder's owner is gone. Same host and PID namespace: the process it names no longer runs (or its pid now
 * belongs to a later process), known at once. Anywhere else (several extractors sharing DATA_DIR): its heartbeat, the
 * folder's modification time, which its owner renews every COOKIE_SWEEP_INTERVAL_MS, is older than COOKIE_OWNER_STALE_MS.
 */
const isAbandoned = (path: string, name: string, host: string | null, now: number) =>
  Effect.promise(async () => {
    const owner = OWNER_FOLDER.exec(name)
    if (owner !== null && host !== null && owner[1] === host) return (await startOf(Number(owner[2]))) !== owner[3]
    const modified = await stat(path).then(
      (s) => s.mtimeMs,
      () => null
    )
    return modified !== null && now - modified > COOKIE_OWNER_STALE_MS
  })

/** One pass over `root`: every folder (or stray file) whose owner is gone is removed with the copies in it. */
export const sweepCookieCopies = Effect.fn("sweepCookieCopies")(function* (root: string, ownFolder: string | null) {
  const host = yield* hostKey
  const now = yield* Clock.currentTimeMillis
  const names = yield* Effect.promise(() => readdir(root).catch(() => [] as Array<string>))
  let removed = 0
  for (const name of names) {
    if (name === ownFolder) continue
    const path = join(root, name)
    if (!(yield* isAbandoned(path, name, host, now))) continue
    yield* Effect.promise(() => rm(path, { recursive: true, force: true }))
    removed++
  }
  if (removed > 0) yield* Effect.logInfo("removed cookie copies of extractors that are gone", { folders: removed })
})

export class CookieCopies extends Context.Service<
  CookieCopies,
  {
    /** This process's own folder (mode 0700) for its runs' copies; removed when the extractor stops. */
    readonly dir: string
  }
>()("mds/extractor/CookieCopies") {
  /** Sweeps at start and then every COOKIE_SWEEP_INTERVAL_MS, renewing this process's heartbeat on the same beat. */
  static readonly layer = Layer.effect(
    CookieCopies,
    Effect.gen(function* () {
      const { workRoot } = yield* ExtractorConfig
      const root = join(workRoot, COOKIE_COPIES_DIR)
      const own = yield* ownFolderName
      const dir = join(root, own)
      yield* Effect.acquireRelease(
        Effect.promise(() => mkdir(root, { recursive: true, mode: 0o700 }).then(() => mkdir(dir, { recursive: true, mode: 0o700 }))),
        () => Effect.promise(() => rm(dir, { recursive: true, force: true }))
      )
      const beat = Effect.gen(function* () {
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* Effect.promise(() => utimes(dir, now, now).catch(() => mkdir(dir, { recursive: true, mode: 0o700 })))
        yield* sweepCookieCopies(root, own)
      }).pipe(Effect.catchCause((cause) => Effect.logWarning("sweeping cookie copies failed", cause)))
      yield* beat
      yield* beat.pipe(Effect.repeat(Schedule.spaced(COOKIE_SWEEP_INTERVAL_MS)), Effect.forkScoped)
      return CookieCopies.of({ dir })
    })
  )
}
