// An entry's number depends on its own date only: adding older entries (a backfill) never changes a number given.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { episodeNumberOf } from "./EpisodeNumber.ts"

describe("episodeNumberOf", () => {
  it("is the year and MMDD0000 without a timestamp, MMDDhhmm with one of the same day", () => {
    expect(episodeNumberOf("20261128", undefined)).toEqual({ season: 2026, episode: 11280000 })
    expect(episodeNumberOf("20261128", Date.UTC(2026, 10, 28, 9, 7) / 1000)).toEqual({ season: 2026, episode: 11280907 })
    expect(episodeNumberOf("20261128", Date.UTC(2026, 10, 29, 9, 7) / 1000)).toEqual({ season: 2026, episode: 11280000 })
    expect(episodeNumberOf("2026-11-28", undefined)).toBeNull()
  })

  it("orders entries of one year by upload time, whatever else exists", () => {
    const day = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true })
    fc.assert(
      fc.property(day, day, (a, b) => {
        const number = (d: Date) => episodeNumberOf(d.toISOString().slice(0, 10).replaceAll("-", ""), Math.floor(d.getTime() / 1000))
        const [na, nb] = [number(a), number(b)]
        if (na === null || nb === null) return false
        if (na.season !== nb.season) return na.season === a.getUTCFullYear()
        const minute = (d: Date) => Math.floor(d.getTime() / 60000)
        return Math.sign(na.episode - nb.episode) === Math.sign(minute(a) - minute(b))
      })
    )
  })
})
