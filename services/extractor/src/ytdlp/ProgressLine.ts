// Parses the progress lines yt-dlp prints with our --progress-template: a percentage, and the bytes involved.
import { PROGRESS_MARKER } from "./YtDlpFlags.ts"

const number = (token: string | undefined) => {
  if (token === undefined || token === "NA" || token === "None") return null
  const value = Number(token)
  return Number.isFinite(value) ? value : null
}

const fields = (line: string) => {
  const at = line.indexOf(PROGRESS_MARKER)
  if (at < 0) return null
  const [downloaded, total, estimate, fragmentIndex, fragmentCount] = line
    .slice(at + PROGRESS_MARKER.length)
    .trim()
    .split(/\s+/)
    .map(number)
  return { downloaded, size: total ?? estimate, fragmentIndex, fragmentCount }
}

/** Percent (0-100, fractional) of the current download, or null for lines that are not progress. */
export const parseProgressLine = (line: string): number | null => {
  const parsed = fields(line)
  if (parsed === null) return null
  const { downloaded, size, fragmentIndex, fragmentCount } = parsed
  // Fragmented downloads (HLS/DASH) only estimate their size; the fragment count is steadier.
  if (fragmentIndex != null && fragmentCount != null && fragmentCount > 0) {
    return Math.min(100, Math.max(0, (fragmentIndex / fragmentCount) * 100))
  }
  if (downloaded == null || size == null || size <= 0) return null
  return Math.min(100, Math.max(0, (downloaded / size) * 100))
}

/**
 * The larger of the bytes already downloaded and the size announced for the current stream, or null. With
 * `concurrentFragments` fragments in flight, yt-dlp's estimate for a fragmented stream counts the bytes of up to that
 * many fragments (the ones in flight and the current one) against the `fragment_index` fragments finished plus one,
 * which early on makes it several times the stream's size: it is scaled back by (index + 1) / (index + fragments), so a
 * job is never ended for a size its stream does not have. With one fragment at a time the factor is 1.
 */
export const parseProgressBytes = (line: string, concurrentFragments = 1): number | null => {
  const parsed = fields(line)
  if (parsed === null) return null
  const { downloaded, size, fragmentIndex } = parsed
  const inFlight = Math.max(1, concurrentFragments)
  const announced = size == null || fragmentIndex == null ? size : (size * (fragmentIndex + 1)) / (fragmentIndex + inFlight)
  const known = [downloaded, announced].filter((value): value is number => value != null && value >= 0)
  return known.length === 0 ? null : Math.max(...known)
}
