// Resolve once, download by media id from the stored info: only media bytes are fetched, formats applied as by URL,
// and stored URLs that stopped working fall back to exactly one fresh extraction.
import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { Effect, Metric } from "effect"
import { describe, expect, it } from "vitest"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { reextractions } from "@mds/shared/observability/Metrics"
import { mediaAndExtractor } from "./ExtractorHarness.ts"

const execFileAsync = promisify(execFile)

const stack = mediaAndExtractor({ WORKER_CONCURRENCY: "2" })

const resolved = (url: string): Promise<MediaResolved> => stack.harness.resolved(url)

const completedFile = (events: ReadonlyArray<JobEvent>) => {
  const last = events.at(-1)
  if (last?._tag !== "JobCompleted") throw new Error(`job did not complete: ${JSON.stringify(last)}`)
  return { artifact: last.artifact, path: join(stack.harness.dataDir, "artifacts", "files", ...last.artifact.key.split("/")) }
}

interface Probe {
  readonly format: { readonly format_name: string }
  readonly streams: ReadonlyArray<{ readonly codec_type: string; readonly codec_name: string; readonly height?: number }>
}

const probe = async (path: string): Promise<Probe> => {
  const { stdout } = await execFileAsync("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path])
  return JSON.parse(stdout) as Probe
}

const reextractionCount = (reason: string) =>
  stack.harness.run(Effect.map(Metric.value(Metric.withAttributes(reextractions, { platform: "generic", reason })), (state) => state.count))

/** Requests the media server saw while `during` ran, by path. */
const requestsDuring = async <A>(during: () => Promise<A>): Promise<{ readonly result: A; readonly paths: ReadonlyArray<string> }> => {
  const before = stack.media.requests.length
  const result = await during()
  return { result, paths: stack.media.requests.slice(before) }
}

const isPageOrManifest = (path: string) => /\.(html|mpd|m3u8)$/.test(path)

describe("download by media id from the stored resolve", () => {
  it("DASH: video_240p arrives at 240p with the separate audio merged, without fetching the manifest again", async () => {
    const m = await resolved(stack.media.urls.dash)
    expect(m.formats.map((f) => f.id)).toContain("video_240p")
    const { result: events, paths } = await requestsDuring(async () => {
      const { projectId, jobId } = await stack.harness.queueJob(m.url, "video_240p", m.mediaId)
      return stack.harness.waitForEnd(projectId, jobId)
    })
    const { path } = completedFile(events)
    const streams = (await probe(path)).streams
    expect(streams.filter((s) => s.codec_type === "video").map((s) => s.height)).toEqual([240])
    expect(streams.filter((s) => s.codec_type === "audio")).toHaveLength(1)
    expect(paths.filter(isPageOrManifest)).toEqual([])
    expect(paths.filter((p) => p.startsWith("/dash/chunk-stream")).length).toBeGreaterThan(0)
  })

  it("DASH: video_best arrives at the top height, and audio_m4a brings audio only (the resolve's own pick is not reused)", async () => {
    const m = await resolved(stack.media.urls.dash)
    const best = await stack.harness.queueJob(m.url, "video_best", m.mediaId)
    const audio = await stack.harness.queueJob(m.url, "audio_m4a", m.mediaId)
    const bestStreams = (await probe(completedFile(await stack.harness.waitForEnd(best.projectId, best.jobId)).path)).streams
    expect(bestStreams.filter((s) => s.codec_type === "video").map((s) => s.height)).toEqual([360])
    expect(bestStreams.filter((s) => s.codec_type === "audio")).toHaveLength(1)
    const audioStreams = (await probe(completedFile(await stack.harness.waitForEnd(audio.projectId, audio.jobId)).path)).streams
    expect(audioStreams.map((s) => s.codec_type)).toEqual(["audio"])
  })

  it("HLS with an audio rendition: video_240p merges the rendition; neither the master nor any playlist is fetched again", async () => {
    const m = await resolved(stack.media.urls.hlsAudio)
    const { result: events, paths } = await requestsDuring(async () => {
      const { projectId, jobId } = await stack.harness.queueJob(m.url, "video_240p", m.mediaId)
      return stack.harness.waitForEnd(projectId, jobId)
    })
    const streams = (await probe(completedFile(events).path)).streams
    expect(streams.filter((s) => s.codec_type === "video").map((s) => s.height)).toEqual([240])
    expect(streams.filter((s) => s.codec_type === "audio")).toHaveLength(1)
    expect(paths.filter(isPageOrManifest)).toEqual([])
    expect(paths.some((p) => p.startsWith("/hls-audio/s240/seg"))).toBe(true)
    expect(paths.some((p) => p.startsWith("/hls-audio/s360/"))).toBe(false)
  })

  it("a page: the page is not fetched again, only the media file", async () => {
    const m = await resolved(stack.media.urls.page)
    const { result: events, paths } = await requestsDuring(async () => {
      const { projectId, jobId } = await stack.harness.queueJob(m.url, "video_best", m.mediaId)
      return stack.harness.waitForEnd(projectId, jobId)
    })
    completedFile(events)
    expect(paths.filter(isPageOrManifest)).toEqual([])
    expect(paths).toContain("/media/clip.mp4")
  })

  it("signed media URLs that expired: exactly one fresh extraction from the page, counted, and the job completes", async () => {
    const m = await resolved(stack.media.urls.signedPage(60_000))
    // As hours later on a platform: the stored URL now answers 403 Signature expired; the page signs a fresh one.
    stack.media.expireSignedUrls()
    const countBefore = await reextractionCount("urls_refused")
    const { result: events, paths } = await requestsDuring(async () => {
      const { projectId, jobId } = await stack.harness.queueJob(m.url, "video_best", m.mediaId)
      return stack.harness.waitForEnd(projectId, jobId)
    })
    const { artifact, path } = completedFile(events)
    expect(artifact.sizeBytes).toBeGreaterThan(10_000)
    expect((await probe(path)).streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"])
    expect(paths.filter((p) => p === "/signed/watch.html")).toHaveLength(1)
    expect(await reextractionCount("urls_refused")).toBe(countBefore + 1)
  })

  it("a media id with nothing stored extracts from the page (counted as info_missing) and completes", async () => {
    const countBefore = await reextractionCount("info_missing")
    const { result: events, paths } = await requestsDuring(async () => {
      const { projectId, jobId } = await stack.harness.queueJob(stack.media.urls.page, "video_best", "med_aaaaaaaaaaaaaaaaaaaaaaaa")
      return stack.harness.waitForEnd(projectId, jobId)
    })
    completedFile(events)
    expect(paths).toContain("/watch/clip.html")
    expect(await reextractionCount("info_missing")).toBe(countBefore + 1)
  })

  it("a download by URL still extracts from the page", async () => {
    const { result: events, paths } = await requestsDuring(async () => {
      const { projectId, jobId } = await stack.harness.queueJob(stack.media.urls.page, "video_best")
      return stack.harness.waitForEnd(projectId, jobId)
    })
    completedFile(events)
    expect(paths).toContain("/watch/clip.html")
  })
})

describe("the platform of a media and a job", () => {
  it("a job by url completes under the extractor that handled it, whatever its host looked like", async () => {
    // As a gateway would queue a URL whose host it took for a curated platform.
    const { projectId, jobId } = await stack.harness.queueJob(stack.media.urls.page, "video_best", undefined, "vimeo")
    const completed = (await stack.harness.waitForEnd(projectId, jobId)).at(-1)
    expect(completed?._tag === "JobCompleted" && completed.platform).toBe("generic")
  })

  it("is the extractor that handled it: yt-dlp's generic extractor for a page on an unknown host", async () => {
    const m = await resolved(stack.media.urls.page)
    expect(m.platform).toBe("generic")
  })
})

describe("the finished file of a download by media id", () => {
  // An ffprobe that notes each start in a file (the confined children get an allow-listed environment, so the path is
  // written into the script).
  const dir = mkdtempSync(join(tmpdir(), "mds-ffprobe-count-"))
  const starts = join(dir, "starts")
  const wrapper = join(dir, "ffprobe")
  writeFileSync(starts, "")
  writeFileSync(wrapper, `#!/bin/sh\necho start >> '${starts}'\nexec ffprobe "$@"\n`, { mode: 0o755 })
  const counted = mediaAndExtractor({ FFPROBE_PATH: wrapper })

  const probesDuring = async <A>(during: () => Promise<A>) => {
    const before = (await readFile(starts, "utf8")).length
    const result = await during()
    return {
      result,
      probes: (await readFile(starts, "utf8"))
        .slice(before)
        .split("\n")
        .filter((l) => l !== "").length
    }
  }

  it("is not probed again: the resolve's probe of a direct file travels in the stored info", async () => {
    const h = counted.harness
    const { result: m, probes: atResolve } = await probesDuring(() => h.resolved(counted.media.urls.mp4))
    expect(atResolve).toBeGreaterThan(0)
    const { result: byMedia, probes: atDownload } = await probesDuring(async () => {
      const { projectId, jobId } = await h.queueJob(m.url, "video_best", m.mediaId)
      return h.waitForEnd(projectId, jobId)
    })
    expect(byMedia.at(-1)?._tag).toBe("JobCompleted")
    expect(atDownload).toBe(0)
    // By url the direct file's streams are unknown until it is here: it is probed once, after the download.
    const { result: byUrl, probes: byUrlProbes } = await probesDuring(async () => {
      const { projectId, jobId } = await h.queueJob(m.url, "video_best", undefined)
      return h.waitForEnd(projectId, jobId)
    })
    expect(byUrl.at(-1)?._tag).toBe("JobCompleted")
    expect(byUrlProbes).toBe(1)
  })
})
