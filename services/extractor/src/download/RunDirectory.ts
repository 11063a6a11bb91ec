// One directory per run: a job handed to a second worker while the first still runs (a long NATS outage stops
// heartbeats) must not share files with it. DATA_DIR may be shared by several extractors.
import { randomBytes } from "node:crypto"
import { mkdir, rm } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"

/** job_<id>-<delivery>-<random>: the name StaleWorkDirs recognises as a download run's. */
export const runDirectoryOf = (workRoot: string, jobId: string, deliveryCount: number): string =>
  join(workRoot, `${jobId}-${deliveryCount}-${randomBytes(4).toString("hex")}`)

export const createRunDirectory = (dir: string) => Effect.promise(() => mkdir(dir, { recursive: true }))

/** The run's files, partial ones included, go with its directory. */
export const removeRunDirectory = (dir: string) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
