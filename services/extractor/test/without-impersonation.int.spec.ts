// The pinned yt-dlp with curl_cffi kept out (a run that impersonates nothing): it takes curl_cffi as not installed,
// never imports it, and still runs.
import { execFile } from "node:child_process"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { childEnvironment } from "../src/sandbox/ChildEnvironment.ts"
import { YT_DLP } from "./ExtractorHarness.ts"

const run = promisify(execFile)
const PYTHON = join(dirname(YT_DLP), "python")
const PROBE = [
  "import sys",
  "import yt_dlp, yt_dlp.networking",
  "from yt_dlp.dependencies import curl_cffi",
  "print(curl_cffi is None, 'curl_cffi' in sys.modules, 'yt_dlp.networking._curlcffi' in sys.modules)"
].join("\n")

const probe = async (withoutImpersonation: boolean) =>
  (await run(PYTHON, ["-c", PROBE], { env: childEnvironment(process.env, null, withoutImpersonation) })).stdout.trim()

describe("yt-dlp with curl_cffi kept out", () => {
  it("finds curl_cffi not installed and imports none of it; without the setting it is imported as usual", async () => {
    expect(await probe(true)).toBe("True False False")
    expect(await probe(false)).toBe("False True True")
  })

  it("still starts and answers", async () => {
    const { stdout } = await run(YT_DLP, ["--version"], { env: childEnvironment(process.env, null, true) })
    expect(stdout.trim()).toMatch(/^\d{4}\.\d{2}\.\d{2}/)
  })
})
