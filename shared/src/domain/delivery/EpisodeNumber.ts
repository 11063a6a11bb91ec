// A subscription entry's season and episode in a media library, from its own upload date and time only, so a backfill
// that adds older entries never renumbers those already delivered: season = the year, episode = MMDDhhmm (UTC time of
// day when the platform gives a timestamp, 0000 when it gives only the date). Two entries of one minute share a number.

export interface EpisodeNumber {
  readonly season: number
  readonly episode: number
}

const UPLOAD_DATE = /^(\d{4})(\d{2})(\d{2})$/u

/** The number from `upload_date` (YYYYMMDD) and `timestamp` (epoch seconds); null when the date is unknown. */
export const episodeNumberOf = (uploadDate: string | undefined, timestamp: number | undefined): EpisodeNumber | null => {
  const date = UPLOAD_DATE.exec(uploadDate ?? "")
  if (date === null) return null
  const [, year, month, day] = date
  const time = timestamp === undefined || !Number.isFinite(timestamp) ? null : new Date(timestamp * 1000)
  const sameDay = time !== null && time.toISOString().slice(0, 10).replaceAll("-", "") === uploadDate
  const hhmm = sameDay ? time.getUTCHours() * 100 + time.getUTCMinutes() : 0
  return { season: Number(year), episode: Number(`${month}${day}`) * 10000 + hhmm }
}

/** `YYYYMMDD` written as `YYYY-MM-DD`, the form NFO dates take; null when it is not a date. */
export const isoDateOf = (uploadDate: string | undefined): string | null => {
  const date = UPLOAD_DATE.exec(uploadDate ?? "")
  return date === null ? null : `${date[1]}-${date[2]}-${date[3]}`
}
