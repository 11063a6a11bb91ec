// Parses curl's progress meter, which yt-dlp passes through on stderr when curl downloads for it: percent and bytes.

export interface CurlMeterReading {
  /** Percent received (0-100), or null while the size is unknown. */
  readonly percent: number | null
  /** The larger of the bytes received and the announced size (a lower bound: curl rounds down). */
  readonly bytes: number
}

const UNITS: Readonly<Record<string, number>> = { "": 1, k: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4, P: 1024 ** 5 }

/** curl prints sizes in five columns: "99999", "1234k", "12.3M", "286M", "1.2G". */
const size = (token: string | undefined): number | null => {
  const match = /^(\d+(?:\.\d)?)([kMGTP]?)$/.exec(token ?? "")
  if (match === null) return null
  return Math.floor(Number(match[1]) * (UNITS[match[2] ?? ""] ?? 1))
}

const percentOf = (token: string | undefined): number | null => {
  if (token === undefined || !/^\d{1,3}$/.test(token)) return null
  const value = Number(token)
  return value <= 100 ? value : null
}

/**
 * One meter line: "% Total % Received % Xferd Dload Upload Time-Total Time-Spent Time-Left Speed", e.g.
 * " 45  286M   45  129M    0     0   150M      0  0:00:01  0:00:01 --:--:--  150M". Anything else is null.
 */
export const parseCurlMeterLine = (line: string): CurlMeterReading | null => {
  const tokens = line.trim().split(/\s+/)
  if (tokens.length !== 12) return null
  const total = size(tokens[1])
  const received = size(tokens[3])
  const percent = percentOf(tokens[2])
  if (total === null || received === null || percent === null || percentOf(tokens[0]) === null) return null
  return { percent: total > 0 ? percent : null, bytes: Math.max(total, received) }
}
