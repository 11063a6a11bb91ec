// Generates the test media (mp4, m4a, jpg, HLS) with ffmpeg once per machine into a shared cache directory.
import { execFile } from "node:child_process"
import { access, chmod, mkdir, mkdtemp, rename, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

/** Bump the suffix whenever the recipes below change, so machines regenerate instead of reusing stale files. */
export const fixturesDir = join(tmpdir(), "mds-fixtures-v1")

export interface MediaFixtures {
  readonly dir: string
  readonly clipMp4: string
  readonly silentMp4: string
  readonly toneM4a: string
  readonly slowMp4: string
  readonly thumbJpg: string
  /** Directory holding master.m3u8 and one sub-directory per variant (v0 = 240p, v1 = 360p). */
  readonly hlsDir: string
}

/** What the fixtures contain, so tests can assert against the same numbers the recipes use. */
export const fixtureFacts = {
  clipSeconds: 4,
  clipWidth: 320,
  clipHeight: 240,
  slowSeconds: 20,
  hlsSeconds: 6,
  hlsHeights: [240, 360]
} as const

const COMPLETE_MARKER = ".complete"
const LOCK_STALE_MS = 180_000
const WAIT_TIMEOUT_MS = 240_000

const ffmpegPath = () => process.env["FFMPEG_PATH"] ?? "ffmpeg"

export const ffmpeg = (args: ReadonlyArray<string>, cwd: string) =>
  run(ffmpegPath(), ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args], {
    cwd,
    maxBuffer: 16 * 1024 * 1024
  })

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false
  )

const tone = (seconds: number) => ["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=44100:duration=${seconds}`]
const pattern = (seconds: number, size: string) => ["-f", "lavfi", "-i", `testsrc=size=${size}:rate=25:duration=${seconds}`]
const h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
const aac = ["-c:a", "aac", "-b:a", "64k"]
/** Two video-only heights (240p, 360p), a keyframe every 25 frames, AAC audio: the HLS and DASH ladders. */
const TWO_HEIGHT_LADDER = [
  ...h264,
  "-s:v:0",
  "320x240",
  "-b:v:0",
  "300k",
  "-s:v:1",
  "640x360",
  "-b:v:1",
  "600k",
  "-g",
  "25",
  "-keyint_min",
  "25",
  "-sc_threshold",
  "0",
  ...aac
]

/** A 640x360 pattern with a tone, its streams mapped in `streams` order, encoded as the two-height ladder and muxed by `muxer` into `sub`. */
const ladder = async (dir: string, sub: string, seconds: number, streams: ReadonlyArray<string>, muxer: ReadonlyArray<string>) => {
  await mkdir(join(dir, sub))
  await ffmpeg(
    [...pattern(seconds, "640x360"), ...tone(seconds), ...streams.flatMap((stream) => ["-map", stream]), ...TWO_HEIGHT_LADDER, ...muxer],
    join(dir, sub)
  )
}

/** A VOD HLS muxer with 2 s segments: master.m3u8 and one `${prefix}N/` directory per entry of `varStreamMap`. */
const hlsVod = (prefix: string, varStreamMap: string) => [
  "-f",
  "hls",
  "-hls_time",
  "2",
  "-hls_playlist_type",
  "vod",
  "-hls_segment_filename",
  `${prefix}%v/seg%d.ts`,
  "-master_pl_name",
  "master.m3u8",
  "-var_stream_map",
  varStreamMap,
  `${prefix}%v/index.m3u8`
]

const generate = async (dir: string) => {
  const s = fixtureFacts.clipSeconds
  const size = `${fixtureFacts.clipWidth}x${fixtureFacts.clipHeight}`
  await ffmpeg([...pattern(s, size), ...tone(s), ...h264, ...aac, "-movflags", "+faststart", "-shortest", "clip.mp4"], dir)
  await ffmpeg([...pattern(s, size), ...h264, "-an", "-movflags", "+faststart", "silent.mp4"], dir)
  await ffmpeg([...tone(s), "-vn", ...aac, "-movflags", "+faststart", "tone.m4a"], dir)
  await ffmpeg([...pattern(1, size), "-frames:v", "1", "-q:v", "4", "thumb.jpg"], dir)
  // Constant bitrate padding keeps the size near 2.6 MB, whatever the encoder makes of the test pattern.
  const slow = fixtureFacts.slowSeconds
  await ffmpeg(
    [
      ...pattern(slow, "640x360"),
      ...tone(slow),
      ...h264,
      "-b:v",
      "1000k",
      "-minrate",
      "1000k",
      "-maxrate",
      "1000k",
      "-bufsize",
      "1000k",
      "-x264-params",
      "nal-hrd=cbr:force-cfr=1",
      ...aac,
      "-movflags",
      "+faststart",
      "-shortest",
      "slow.mp4"
    ],
    dir
  )
  // Keyframes every second so the 2 s segments cut cleanly in both variants.
  await ladder(dir, "hls", fixtureFacts.hlsSeconds, ["0:v", "1:a", "0:v", "1:a"], hlsVod("v", "v:0,a:0 v:1,a:1"))
}

const describe = (dir: string): MediaFixtures => ({
  dir,
  clipMp4: join(dir, "clip.mp4"),
  silentMp4: join(dir, "silent.mp4"),
  toneM4a: join(dir, "tone.m4a"),
  slowMp4: join(dir, "slow.mp4"),
  thumbJpg: join(dir, "thumb.jpg"),
  hlsDir: join(dir, "hls")
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Parallel test files call this at once: one takes the lock (mkdir is atomic), builds into a private
 * directory and renames it into place; the others wait for the finished directory to appear.
 */
export const buildOnce = async <F>(
  fixturesDir: string,
  generate: (dir: string) => Promise<void>,
  describe: (dir: string) => F
): Promise<F> => {
  const lockDir = `${fixturesDir}.lock`
  const deadline = Date.now() + WAIT_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (await exists(join(fixturesDir, COMPLETE_MARKER))) return describe(fixturesDir)
    const locked = await mkdir(lockDir).then(
      () => true,
      () => false
    )
    if (locked) {
      const work = await mkdtemp(`${fixturesDir}.build-`)
      try {
        await generate(work)
        await writeFile(join(work, COMPLETE_MARKER), new Date().toISOString())
        // mkdtemp makes the directory private; other users of the machine reuse the fixtures too.
        await chmod(work, 0o755)
        // A half-built leftover from a killed run has no marker; clear it before taking its place.
        await rm(fixturesDir, { recursive: true, force: true })
        await rename(work, fixturesDir)
        return describe(fixturesDir)
      } catch (error) {
        await rm(work, { recursive: true, force: true })
        throw error
      } finally {
        await rm(lockDir, { recursive: true, force: true })
      }
    }
    const lockAge = await stat(lockDir).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0
    )
    if (lockAge > LOCK_STALE_MS) await rm(lockDir, { recursive: true, force: true })
    await sleep(200)
  }
  throw new Error(`media fixtures were not ready in ${fixturesDir} within ${WAIT_TIMEOUT_MS} ms`)
}

/** One build per process shared by all callers; a failed build is forgotten so the next call tries again. */
export const sharedUntilFailure = <F>(build: () => Promise<F>): (() => Promise<F>) => {
  let pending: Promise<F> | null = null
  return () => {
    if (pending === null) {
      pending = build()
      pending.catch(() => {
        pending = null
      })
    }
    return pending
  }
}

/** Returns the fixture paths, generating them first if this machine has none yet. */
export const ensureMediaFixtures: () => Promise<MediaFixtures> = sharedUntilFailure(() => buildOnce(fixturesDir, generate, describe))

/** Media shaped like real platforms serve it, in a cache directory of their own (bump its suffix with the recipes). */
export const streamingFixturesDir = join(tmpdir(), "mds-fixtures-streaming-v1")

export interface StreamingFixtures {
  readonly dir: string
  /** manifest.mpd: two video-only representations (240p, 360p) and one separate AAC audio adaptation set. */
  readonly dashDir: string
  /** master.m3u8: two video-only variants (s240, s360) and an EXT-X-MEDIA TYPE=AUDIO rendition (saudio). */
  readonly hlsAudioDir: string
  /** VP9 video with Opus audio in WebM. */
  readonly vp9Webm: string
  /** MP3 with ID3 title and artist and an embedded cover picture. */
  readonly episodeMp3: string
}

export const streamingFacts = {
  seconds: 6,
  heights: [240, 360],
  webmSeconds: 4,
  webmHeight: 240,
  episodeSeconds: 4,
  episodeTitle: "MDS Test Episode",
  episodeArtist: "MDS Podcast Host"
} as const

const generateStreaming = async (dir: string) => {
  const s = streamingFacts.seconds
  await ladder(
    dir,
    "dash",
    s,
    ["0:v", "0:v", "1:a"],
    [
      "-f",
      "dash",
      "-seg_duration",
      "2",
      "-use_template",
      "1",
      "-use_timeline",
      "0",
      "-adaptation_sets",
      "id=0,streams=v id=1,streams=a",
      "manifest.mpd"
    ]
  )
  await ladder(
    dir,
    "hls-audio",
    s,
    ["0:v", "0:v", "1:a"],
    hlsVod("s", "a:0,agroup:aud,default:yes,name:audio v:0,agroup:aud,name:240 v:1,agroup:aud,name:360")
  )
  const w = streamingFacts.webmSeconds
  await ffmpeg(
    [
      ...pattern(w, `320x${streamingFacts.webmHeight}`),
      ...tone(w),
      "-c:v",
      "libvpx-vp9",
      "-deadline",
      "realtime",
      "-cpu-used",
      "8",
      "-b:v",
      "200k",
      "-c:a",
      "libopus",
      "-b:a",
      "48k",
      "-shortest",
      "clip.webm"
    ],
    dir
  )
  const e = streamingFacts.episodeSeconds
  await ffmpeg([...pattern(1, "320x320"), "-frames:v", "1", "cover.jpg"], dir)
  await ffmpeg(
    [
      ...tone(e),
      "-i",
      "cover.jpg",
      "-map",
      "0:a",
      "-map",
      "1:v",
      "-c:a",
      "libmp3lame",
      "-b:a",
      "64k",
      "-c:v",
      "copy",
      "-disposition:v",
      "attached_pic",
      "-id3v2_version",
      "3",
      "-metadata",
      `title=${streamingFacts.episodeTitle}`,
      "-metadata",
      `artist=${streamingFacts.episodeArtist}`,
      "episode.mp3"
    ],
    dir
  )
}

const describeStreaming = (dir: string): StreamingFixtures => ({
  dir,
  dashDir: join(dir, "dash"),
  hlsAudioDir: join(dir, "hls-audio"),
  vp9Webm: join(dir, "clip.webm"),
  episodeMp3: join(dir, "episode.mp3")
})

/** Returns the streaming fixture paths, generating them first if this machine has none yet. */
export const ensureStreamingFixtures: () => Promise<StreamingFixtures> = sharedUntilFailure(() =>
  buildOnce(streamingFixturesDir, generateStreaming, describeStreaming)
)
