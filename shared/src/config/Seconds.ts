// Settings given in seconds, read as milliseconds: one rule for every service's Config.
import { Config } from "effect"

/** A whole number of seconds (API_JOB_TTL_SECONDS, ...). */
export const wholeSecondsAsMs = (name: string, fallback: number) =>
  Config.Int(name).pipe(
    Config.withDefault(fallback),
    Config.map((s) => s * 1000)
  )

/** Seconds that may have a fraction (EXPIRY_SWEEP_INTERVAL_SECONDS=0.2, ...). */
export const secondsAsMs = (name: string, fallback: number) =>
  Config.Number(name).pipe(
    Config.withDefault(fallback),
    Config.map((s) => s * 1000)
  )
