// What every fetch of a job checks first and how long it may take: the job's URL, allowed by the egress policy, and
// the download timeout.
import { Effect } from "effect"
import type { EgressPolicyShape } from "@mds/shared/egress/EgressPolicy"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"

export const allowedJobUrl = (policy: EgressPolicyShape, raw: string): Effect.Effect<URL, DownloadFailed> =>
  Effect.try({
    try: () => new URL(raw),
    catch: () => jobFailure("url_not_allowed", "the URL is not valid")
  }).pipe(Effect.tap((url) => policy.check(url).pipe(Effect.mapError((error) => jobFailure("url_not_allowed", error.message)))))

export const withinDownloadTimeout =
  (timeoutMs: number, exempt: () => boolean = () => false) =>
  <A, E, R>(fetch: Effect.Effect<A, E, R>): Effect.Effect<A, E | DownloadFailed, R> =>
    fetch.pipe(
      // `exempt` is asked when the time is up: a run it exempts (a live recording, capped otherwise) goes on.
      Effect.raceFirst(
        Effect.sleep(timeoutMs).pipe(
          Effect.andThen(
            Effect.suspend(() =>
              exempt() ? Effect.never : Effect.fail(jobFailure("download_timeout", `The download took longer than ${timeoutMs / 1000} s.`))
            )
          )
        )
      )
    )
