// Work directories a killed worker left behind are removed at start; recent ones (another extractor's runs) stay.
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeStaleWorkDirs } from "../src/download/StaleWorkDirs.ts"
import { ExtractorConfig } from "../src/ExtractorConfig.ts"

let dataDir: string
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "mds-stale-"))
})
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

const makeDir = async (name: string, ageMs: number) => {
  const path = join(dataDir, "work", name)
  await mkdir(path, { recursive: true })
  await writeFile(join(path, "media.mp4.part"), "partial")
  const at = new Date(Date.now() - ageMs)
  await utimes(path, at, at)
}

describe("removeStaleWorkDirs", () => {
  it("removes run directories older than any run can last, keeps recent ones and anything it does not own", async () => {
    const hour = 3_600_000
    await makeDir("job_aaaaaaaaaaaaaaaaaaaaaaaa-1-0a1b2c3d", 2 * hour)
    await makeDir("resolve-med_bbbbbbbbbbbbbbbbbbbbbbbb", 2 * hour)
    await makeDir("job_cccccccccccccccccccccccc-2-deadbeef", 60_000)
    await makeDir("not-ours", 5 * hour)
    const config = ExtractorConfig.layer.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ DATA_DIR: dataDir, DOWNLOAD_TIMEOUT_SECONDS: "1800" })))
    )
    await Effect.runPromise(removeStaleWorkDirs.pipe(Effect.provide(config)))
    expect((await readdir(join(dataDir, "work"))).sort()).toEqual(["job_cccccccccccccccccccccccc-2-deadbeef", "not-ours"])
  })
})
