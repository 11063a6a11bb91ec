// Specifications of an Idempotency-Key: claim, bind, replay, refuse another body, release on failure, take over stale claims.
import { describe, it } from "vitest"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { IdempotencyDecider } from "./IdempotencyDecider.ts"
import type { IdempotencyEvent } from "./IdempotencyEvent.ts"

const given = DeciderSpecification.for(IdempotencyDecider)
const STALE = 30_000
const claim = (requestHash: string, now = 1_000) =>
  ({ _tag: "ClaimKey", projectId: "prj_a", requestHash, now, staleAfterMs: STALE }) as const
const claimed = (requestHash: string, at = 1_000): IdempotencyEvent => ({
  _tag: "IdempotencyKeyClaimed",
  v: 1,
  projectId: "prj_a",
  requestHash,
  at
})
const bound = (jobId: string, at = 1_100): IdempotencyEvent => ({ _tag: "IdempotencyKeyBound", v: 1, jobId, at })
const released = (at = 1_100): IdempotencyEvent => ({ _tag: "IdempotencyKeyReleased", v: 1, at })

describe("IdempotencyDecider", () => {
  it("claims a fresh key", () =>
    given([])
      .when(claim("h1"))
      .then([claimed("h1")]))

  it("binds the pending claim to the job its request created", () =>
    given([claimed("h1")])
      .when({ _tag: "BindKey", requestHash: "h1", jobId: "job_1", now: 1_100 })
      .then([bound("job_1")]))

  it("replays a bound key for the same body (nothing to append)", () =>
    given([claimed("h1"), bound("job_1")])
      .when(claim("h1", 5_000))
      .thenNothing())

  it("refuses another body on a bound key", () =>
    given([claimed("h1"), bound("job_1")])
      .when(claim("h2", 5_000))
      .thenRejects("IdempotencyKeyReused"))

  it("refuses another body on a pending key", () =>
    given([claimed("h1")])
      .when(claim("h2", 1_200))
      .thenRejects("IdempotencyKeyReused"))

  it("asks the same body to wait while the first request is still running", () =>
    given([claimed("h1")])
      .when(claim("h1", 1_200))
      .thenRejects("IdempotencyKeyInUse"))

  it("lets a claim abandoned for longer than the stale limit be taken over", () =>
    given([claimed("h1")])
      .when(claim("h1", 1_000 + STALE))
      .then([claimed("h1", 1_000 + STALE)]))

  it("frees the key when the claiming request failed, so a retry can claim it", () => {
    given([claimed("h1")])
      .when({ _tag: "ReleaseKey", requestHash: "h1", now: 1_100 })
      .then([released()])
    given([claimed("h1"), released()])
      .when(claim("h2", 1_200))
      .then([claimed("h2", 1_200)])
  })

  it("binding or releasing a key that is not pending for that body changes nothing", () => {
    given([]).when({ _tag: "BindKey", requestHash: "h1", jobId: "job_1", now: 1 }).thenNothing()
    given([claimed("h1"), bound("job_1")])
      .when({ _tag: "ReleaseKey", requestHash: "h1", now: 2 })
      .thenNothing()
    given([claimed("h1")])
      .when({ _tag: "ReleaseKey", requestHash: "h2", now: 2 })
      .thenNothing()
  })
})
