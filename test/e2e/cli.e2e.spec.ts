// The user CLI (`mds`) end to end against the running stack: resolve, download with progress (plain and on a terminal), jobs, platforms.
import { spawn } from "node:child_process"
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REPO_ROOT } from "../support/ServiceStack.ts"
import { probeBytes } from "./MediaProbe.ts"
import { useMediaStack } from "./MediaStack.ts"

const CLI = join(REPO_ROOT, "packages", "client", "src", "cli", "main.ts")

const e2e = useMediaStack({ throttleBytesPerSecond: 256 * 1024 })
let workDir: string

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "mds-cli-e2e-"))
})

afterAll(async () => {
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true })
})

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const cliEnv = (extra: Record<string, string> = {}) => ({
  PATH: process.env["PATH"] ?? "",
  HOME: process.env["HOME"] ?? "",
  MDS_URL: e2e.stack.baseUrl.replace(/\/v1$/, ""),
  MDS_API_KEY: e2e.key,
  ...extra
})

const run = (command: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<Run>((resolve, reject) => {
    const child = spawn(command, args, { cwd: workDir, env, stdio: ["ignore", "pipe", "pipe"], timeout: 150_000, killSignal: "SIGKILL" })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const mds = (args: ReadonlyArray<string>, env = cliEnv()) => run(process.execPath, [CLI, ...args], env)

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`

/** Runs the CLI on a pseudo-terminal (util-linux script), so stderr.isTTY is true as in an interactive shell. */
const mdsOnTerminal = (args: ReadonlyArray<string>) =>
  run("script", ["-q", "-e", "-c", [process.execPath, CLI, ...args].map(shellQuote).join(" "), "/dev/null"], cliEnv())

const explain = (result: Run) => `code ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}\n${e2e.stack.logs()}`

describe("mds", () => {
  it("without MDS_API_KEY refuses to run and says how to set it (exit 2)", async () => {
    const result = await mds(["platforms"], { ...cliEnv(), MDS_API_KEY: "" })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("MDS_API_KEY")
    expect(result.stdout).toBe("")
  })

  it("platforms lists generic; --json gives the API's data", async () => {
    const text = await mds(["platforms"])
    expect(text.code, explain(text)).toBe(0)
    expect(text.stdout).toMatch(/^generic\s+Generic/m)
    const json = await mds(["platforms", "--json"])
    expect(JSON.parse(json.stdout).map((p: any) => p.id)).toContain("generic")
  })

  it("resolve shows title, id and formats", async () => {
    const result = await mds(["resolve", e2e.media.urls.page])
    expect(result.code, explain(result)).toBe(0)
    expect(result.stdout).toMatch(/^id: med_[a-z2-7]{24}$/m)
    expect(result.stdout).toMatch(/^\s+video_best\s+video/m)
    expect(result.stdout).toMatch(/^\s+audio_mp3\s+audio/m)
  })

  it("download with --progress plain: queued, rising progress, the file saved where -o says, its path on stdout", async () => {
    const output = join(workDir, "clip.mp4")
    const result = await mds(["download", e2e.media.urls.slow, "--format", "video_best", "-o", output, "--progress", "plain"])
    expect(result.code, explain(result)).toBe(0)
    expect(result.stdout.trim()).toBe(output)
    const lines = result.stderr.trim().split("\n")
    expect(lines[0]).toMatch(/^job job_[a-z2-7]{24} queued$/)
    const jobPercents = lines.flatMap((line) => {
      const match = /^(queued|processing|completed) (\d+)%$/.exec(line)
      return match === null ? [] : [Number(match[2])]
    })
    expect(jobPercents.at(-1), result.stderr).toBe(100)
    for (let i = 1; i < jobPercents.length; i++) expect(jobPercents[i]).toBeGreaterThanOrEqual(jobPercents[i - 1] ?? 0)
    expect(lines.at(-1)).toMatch(/^downloading 100% .+ \/ .+$/)
    const bytes = await readFile(output)
    expect(bytes.length).toBeGreaterThan(1000)
    expect((await probeBytes(bytes, ".mp4")).codecTypes).toContain("video")
    expect((await readdir(workDir)).filter((name) => name.endsWith(".part"))).toEqual([])

    const jobId = /job (job_[a-z2-7]{24})/.exec(lines[0] ?? "")?.[1] ?? ""
    const job = await mds(["jobs", "get", jobId])
    expect(job.code, explain(job)).toBe(0)
    expect(job.stdout).toContain(`${jobId}: completed 100%`)
    expect(job.stdout).toMatch(/^link: http/m)
  })

  it("download on a terminal draws a bar redrawn in place, and saves under the service's file name by default", async () => {
    const result = await mdsOnTerminal(["download", e2e.media.urls.mp4, "--format", "audio_m4a"])
    expect(result.code, explain(result)).toBe(0)
    // script merges the terminal's streams into its stdout.
    const screen = result.stdout
    expect(screen).toContain("\r\x1b[2K[")
    expect(screen).toMatch(/\[#{30}\] 100% completed/)
    expect(screen).toMatch(/\[#{30}\] 100% downloading/)
    const saved =
      screen
        .split(/\r?\n/)
        .map((line) => line.trim())
        .find((line) => line.startsWith(workDir)) ?? ""
    expect(saved, screen).toMatch(/\.m4a$/)
    expect((await stat(saved)).size).toBeGreaterThan(1000)
  })

  it("a job that fails is reported with its code and exit 1", async () => {
    const result = await mds(["download", e2e.media.urls.notFound, "--format", "video_best", "--progress", "none"])
    expect(result.code, explain(result)).toBe(1)
    expect(result.stderr).toMatch(/failed: (media_unavailable|download_failed): /)
    expect(result.stdout).toBe("")
  })

  it("an API refusal is reported with its code and request id", async () => {
    const result = await mds(["resolve", "https://www.youtube.com/watch?v=x"])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^mds: unsupported_platform: .+ \(request req_[0-9a-f]{24}\)$/m)
  })

  it("download --start --end --precise saves the clip, which ffprobe measures at end - start", async () => {
    const output = join(workDir, "section.mp4")
    const result = await mds([
      "download",
      e2e.media.urls.slow,
      "--format",
      "video_best",
      "--start",
      "5",
      "--end",
      "12",
      "--precise",
      "-o",
      output,
      "--progress",
      "none",
      "--json"
    ])
    expect(result.code, explain(result)).toBe(0)
    expect(JSON.parse(result.stdout).job.options).toEqual({ section: { start: 5, end: 12, precise: true } })
    const probed = await probeBytes(await readFile(output), ".mp4")
    expect(Math.abs(probed.durationSeconds - 7), `duration ${probed.durationSeconds}`).toBeLessThanOrEqual(0.5)
  })

  it("download with an output preset: --container webm gives a VP9 webm named so", async () => {
    const result = await mds([
      "download",
      e2e.media.urls.mp4,
      "--format",
      "video_best",
      "--container",
      "webm",
      "--mute",
      "--progress",
      "none"
    ])
    expect(result.code, explain(result)).toBe(0)
    const saved = result.stdout.trim()
    expect(saved).toMatch(/\.webm$/)
    const probed = await probeBytes(await readFile(saved), ".webm")
    expect(probed.codecNames).toEqual(["vp9"])
  })

  it("flags the service refuses are reported with the field; flags without their partner are usage errors", async () => {
    const refused = await mds(["download", e2e.media.urls.mp4, "--format", "audio_mp3", "--video-codec", "h264"])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^mds: invalid_options: .*video_codec/m)
    const alone = await mds(["download", e2e.media.urls.mp4, "--format", "video_best", "--start", "5"])
    expect(alone.code).toBe(2)
    expect(alone.stderr).toContain("--start needs --end")
  })

  it("cancel JOB cancels a running job (exit 0, failed: canceled); a finished job is refused (exit 1)", async () => {
    const queued = await fetch(`${e2e.stack.baseUrl}/media/download`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": e2e.key },
      body: JSON.stringify({ url: `${e2e.media.urls.slow}?rate=65536`, format: "video_best" })
    })
    const jobId = ((await queued.json()) as any).data.job_id
    const canceled = await mds(["cancel", jobId])
    expect(canceled.code, explain(canceled)).toBe(0)
    expect(canceled.stdout).toContain(`${jobId}: failed`)
    expect(canceled.stdout).toMatch(/^error: canceled: /m)
    const again = await mds(["cancel", jobId, "--json"])
    expect(JSON.parse(again.stdout).error.code).toBe("canceled")

    const done = await mds(["download", e2e.media.urls.mp4, "--format", "audio_m4a", "--progress", "none", "--json"])
    const finished = await mds(["cancel", JSON.parse(done.stdout).job.id])
    expect(finished.code).toBe(1)
    expect(finished.stderr).toMatch(/^mds: job_already_finished: /m)
  })

  it("batch PLAYLIST_URL --format audio_mp3 downloads every entry of a feed and lists their jobs", async () => {
    const result = await mds(["batch", e2e.media.urls.podcastFeed, "--format", "audio_mp3", "--progress", "plain"])
    expect(result.code, explain(result)).toBe(0)
    expect(result.stderr).toMatch(/^batch bat_[a-z2-7]{24} of 3 entries$/m)
    expect(result.stdout).toMatch(/^bat_[a-z2-7]{24}: completed 3\/3 completed, 0 failed \(audio_mp3\)$/m)
    expect(result.stdout.match(/^\s+completed\s+job_[a-z2-7]{24} Episode \d$/gm)).toHaveLength(3)
    const batchId = /^(bat_[a-z2-7]{24})/m.exec(result.stdout)?.[1] ?? ""
    const shown = await mds(["batches", "get", batchId, "--json"])
    expect(JSON.parse(shown.stdout).progress).toMatchObject({ total: 3, completed: 3 })
    const notPlaylist = await mds(["batch", e2e.media.urls.mp4, "--format", "audio_mp3"])
    expect(notPlaylist.code).toBe(2)
    expect(notPlaylist.stderr).toContain("not a playlist")
  })
})
