// A minute of media in one-second fragments (HLS, and DASH with separate audio), made with ffmpeg once per machine.
import { mkdir } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildOnce, ffmpeg, sharedUntilFailure } from "./MediaFixtures.ts"

/** Bump the suffix whenever the recipes below change. */
export const fragmentedFixturesDir = join(tmpdir(), "mds-fixtures-fragmented-v1")

export interface FragmentedFixtures {
  readonly dir: string
  /** index.m3u8 with `fragmentedFacts.seconds` one-second MPEG-TS segments (video and audio muxed). */
  readonly hlsDir: string
  /** manifest.mpd: one video representation and a separate AAC audio adaptation set, one-second segments. */
  readonly dashDir: string
}

export const fragmentedFacts = { seconds: 60, segmentSeconds: 1, videoKbps: 2000 } as const

/**
 * Constant bitrate (padded), so every segment weighs about the same (~260 KB) whatever the encoder makes of the test
 * pattern: the transfer, not the first byte alone, takes time at a CDN's per-connection rate.
 */
const input = (seconds: number) => [
  "-f",
  "lavfi",
  "-i",
  `testsrc=size=640x360:rate=25:duration=${seconds}`,
  "-f",
  "lavfi",
  "-i",
  `sine=frequency=440:sample_rate=44100:duration=${seconds}`
]
const video = (kbps: number) => [
  "-c:v",
  "libx264",
  "-preset",
  "ultrafast",
  "-pix_fmt",
  "yuv420p",
  "-b:v",
  `${kbps}k`,
  "-minrate",
  `${kbps}k`,
  "-maxrate",
  `${kbps}k`,
  "-bufsize",
  `${kbps}k`,
  "-x264-params",
  "nal-hrd=cbr:force-cfr=1",
  "-g",
  "25",
  "-keyint_min",
  "25",
  "-sc_threshold",
  "0"
]
const audio = ["-c:a", "aac", "-b:a", "64k"]

const generate = async (dir: string) => {
  const { seconds, segmentSeconds, videoKbps } = fragmentedFacts
  await mkdir(join(dir, "hls"))
  await ffmpeg(
    [
      ...input(seconds),
      ...video(videoKbps),
      ...audio,
      "-f",
      "hls",
      "-hls_time",
      String(segmentSeconds),
      "-hls_playlist_type",
      "vod",
      "-hls_segment_filename",
      "seg%d.ts",
      "index.m3u8"
    ],
    join(dir, "hls")
  )
  await mkdir(join(dir, "dash"))
  await ffmpeg(
    [
      ...input(seconds),
      "-map",
      "0:v",
      "-map",
      "1:a",
      ...video(videoKbps),
      ...audio,
      "-f",
      "dash",
      "-seg_duration",
      String(segmentSeconds),
      "-use_template",
      "1",
      "-use_timeline",
      "0",
      "-adaptation_sets",
      "id=0,streams=v id=1,streams=a",
      "manifest.mpd"
    ],
    join(dir, "dash")
  )
}

const describe = (dir: string): FragmentedFixtures => ({ dir, hlsDir: join(dir, "hls"), dashDir: join(dir, "dash") })

export const ensureFragmentedFixtures: () => Promise<FragmentedFixtures> = sharedUntilFailure(() =>
  buildOnce(fragmentedFixturesDir, generate, describe)
)
