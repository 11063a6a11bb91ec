// Pure: an HLS media playlist cut down to the segments a clip overlaps, for yt-dlp's native HLS downloader to fetch.

/** The part of the media a clip needs, in seconds of the media's own timeline. */
export interface ClipWindow {
  readonly start: number
  readonly end: number
}

export interface TrimmedPlaylist {
  readonly playlist: string
  /** Where the first kept segment starts in the media: the downloaded file's time 0. */
  readonly startSeconds: number
}

const AD_START = (line: string) =>
  (line.startsWith("#ANVATO-SEGMENT-INFO") && line.includes("type=ad")) || (line.startsWith("#UPLYNK-SEGMENT") && line.endsWith(",ad"))
const AD_END = (line: string) =>
  (line.startsWith("#ANVATO-SEGMENT-INFO") && line.includes("type=master")) ||
  (line.startsWith("#UPLYNK-SEGMENT") && line.endsWith(",segment"))

const EXTINF = /^#EXTINF:\s*([0-9]+(?:\.[0-9]+)?)/u
const BYTERANGE = /^#EXT-X-BYTERANGE:\s*([0-9]+)(?:@([0-9]+))?/u

interface Segment {
  /** Line indexes of the segment's URI, its #EXTINF and its #EXT-X-BYTERANGE (if any). */
  readonly uri: number
  readonly extinf: number | null
  readonly byteRange: number | null
  /** Byte offset the segment's range starts at, when it has one (explicit, or where the previous range ended). */
  readonly byteOffset: number | null
  readonly start: number
  readonly duration: number
  /** yt-dlp downloads it (not an ad, and of the format's discontinuity group when the format names one). */
  readonly downloaded: boolean
}

/**
 * The playlist with the segments outside `window` removed, or null when it cannot be trimmed exactly (a segment yt-dlp
 * downloads without a duration, or no segment overlapping the window): the clip then goes the way it went before.
 *
 * Only each dropped segment's URI, #EXTINF and #EXT-X-BYTERANGE go; every other tag stays where it was, so yt-dlp's
 * HlsFD (yt_dlp/downloader/hls.py) reads the kept segments exactly as in the whole playlist: the #EXT-X-KEY in force,
 * #EXT-X-MAP, the discontinuities it counts for `format_index`, the ad markers it skips. Two things it derives from
 * the segments before are written out instead: the byte offset of the first kept range, and (for AES-128 without an
 * IV, where the IV is the media sequence number) #EXT-X-MEDIA-SEQUENCE. Time is counted over the segments yt-dlp
 * downloads, which is the downloaded file's timeline.
 */
export const trimHlsPlaylist = (text: string, window: ClipWindow, formatIndex: number | null = null): TrimmedPlaylist | null => {
  const lines = text.split(/\r?\n/u)
  const segments: Array<Segment> = []
  let extinf: { line: number; duration: number } | null = null
  let byteRange: { line: number; length: number; offset: number | null } | null = null
  let nextByteOffset = 0
  let discontinuities = 0
  let inAd = false
  let clock = 0
  let mediaSequence: { line: number; value: number } | null = null
  let keyed = false
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim()
    if (line === "") continue
    if (!line.startsWith("#")) {
      const downloaded = !inAd && (formatIndex === null || discontinuities === formatIndex)
      if (downloaded && extinf === null) return null
      const duration = extinf?.duration ?? 0
      const byteOffset = byteRange === null ? null : (byteRange.offset ?? nextByteOffset)
      segments.push({
        uri: index,
        extinf: extinf?.line ?? null,
        byteRange: byteRange?.line ?? null,
        byteOffset,
        start: clock,
        duration,
        downloaded
      })
      if (downloaded) {
        clock += duration
        if (byteRange !== null && byteOffset !== null) nextByteOffset = byteOffset + byteRange.length
        byteRange = null
      }
      extinf = null
      continue
    }
    const duration = EXTINF.exec(line)
    if (duration !== null) extinf = { line: index, duration: Number(duration[1]) }
    const range = BYTERANGE.exec(line)
    if (range !== null) byteRange = { line: index, length: Number(range[1]), offset: range[2] === undefined ? null : Number(range[2]) }
    if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) mediaSequence = { line: index, value: Number(line.slice(22)) }
    if (line.startsWith("#EXT-X-KEY:") && /METHOD=AES-128/u.test(line)) keyed = true
    if (line.startsWith("#EXT-X-DISCONTINUITY") && !line.startsWith("#EXT-X-DISCONTINUITY-SEQUENCE")) discontinuities++
    if (AD_START(line)) inAd = true
    else if (AD_END(line)) inAd = false
  }
  const downloaded = segments.filter((s) => s.downloaded)
  const kept = downloaded.filter((s) => s.start < window.end && s.start + s.duration > window.start)
  const first = kept[0]
  if (first === undefined) return null
  const last = kept.at(-1) ?? first
  const dropped = new Set<number>()
  const droppedBefore = downloaded.filter((s) => s.start < first.start).length
  for (const segment of downloaded) {
    if (segment.start >= first.start && segment.start <= last.start) continue
    dropped.add(segment.uri)
    if (segment.extinf !== null) dropped.add(segment.extinf)
    if (segment.byteRange !== null) dropped.add(segment.byteRange)
  }
  const out: Array<string> = []
  for (const [index, line] of lines.entries()) {
    if (dropped.has(index)) continue
    if (index === first.byteRange && first.byteOffset !== null) {
      out.push(line.trim().replace(/^(#EXT-X-BYTERANGE:\s*[0-9]+)(?:@[0-9]+)?/u, `$1@${first.byteOffset}`))
    } else if (keyed && droppedBefore > 0 && index === mediaSequence?.line) {
      out.push(`#EXT-X-MEDIA-SEQUENCE:${mediaSequence.value + droppedBefore}`)
    } else out.push(line)
    if (keyed && droppedBefore > 0 && mediaSequence === null && index === 0) out.push(`#EXT-X-MEDIA-SEQUENCE:${droppedBefore}`)
  }
  return { playlist: out.join("\n"), startSeconds: first.start }
}
