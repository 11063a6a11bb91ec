// /v1/subscriptions over the gateway (a fake extractor answers the resolve RPC, the aggregator's list projection runs):
// create, read, list, pause, resume, check now and remove, with their errors; the checks are the aggregator's
// (test/int/subscriptions).
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { subscriptionSubject } from "@mds/shared/eventstore/Subjects"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { subscriptionView } from "../../../test/int/readmodel/SubscriptionReadModel.contract.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { startListProjections } from "./AggregatorProjections.ts"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let projections: Awaited<ReturnType<typeof startListProjections>>
let key: string
let projectId: string
let otherKey: string
let readOnlyKey: string

beforeAll(async () => {
  h = await startHarness()
  ;({ key, projectId } = await h.provisionKey())
  ;({ key: otherKey } = await h.provisionKey())
  ;({ key: readOnlyKey } = await h.provisionKey({ scopes: ["media:resolve"] }))
  projections = await startListProjections(h.env)
})
afterAll(async () => {
  await projections?.dispose()
  await h?.close()
})

const call = (method: "GET" | "POST" | "DELETE", url: string, body?: unknown, apiKey = key) =>
  h.gateway.app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), "x-api-key": apiKey }
  })

const FEED = "https://example.com/feed.xml"

const listedIds = async () => (await call("GET", "/v1/subscriptions")).json().data.map((s: { id: string }) => s.id) as Array<string>

describe("/v1/subscriptions", () => {
  it("creates a subscription of a playlist URL whose first check is due at once", async () => {
    const created = await call("POST", "/v1/subscriptions", {
      url: FEED,
      format: "audio_mp3",
      check_every: 7200,
      backfill: 2,
      filters: { title_contains: "Episode", min_duration: 30 }
    })
    expect(created.statusCode, created.body).toBe(201)
    const body = created.json().data
    expect(body).toMatchObject({
      url: FEED,
      format: "audio_mp3",
      status: "active",
      check_every: 7200,
      backfill: 2,
      filters: { title_contains: "Episode", min_duration: 30 },
      last_check: null,
      last_error: null
    })
    expect(body.next_check_at).toBe(body.created_at)
    const events = await h.gateway.run(
      Effect.gen(function* () {
        return yield* (yield* EventStore).readSubject(SubscriptionEvent, subscriptionSubject(projectId, body.id))
      })
    )
    expect(events.map((e) => e.event._tag)).toEqual(["SubscriptionCreated"])
  })

  it("refuses a URL that resolves as one media (422 not_a_playlist), a short interval and a big backfill (422 invalid_options)", async () => {
    const single = await call("POST", "/v1/subscriptions", { url: "https://example.com/watch/1", format: "audio_mp3" })
    expect(single.statusCode).toBe(422)
    expect(single.json().error.code).toBe("not_a_playlist")
    expect(single.json().error.message).toContain("not as a playlist")
    const often = await call("POST", "/v1/subscriptions", { url: FEED, format: "audio_mp3", check_every: 60 })
    expect(often.statusCode).toBe(422)
    expect(often.json().error).toMatchObject({ code: "invalid_options", message: expect.stringContaining("900") })
    const backfill = await call("POST", "/v1/subscriptions", { url: FEED, format: "audio_mp3", backfill: 51 })
    expect(backfill.statusCode).toBe(422)
    expect(backfill.json().error.code).toBe("invalid_options")
    const noScope = await call("POST", "/v1/subscriptions", { url: FEED, format: "audio_mp3" }, readOnlyKey)
    expect(noScope.statusCode).toBe(403)
  })

  it("pauses, refuses check now while paused, resumes, checks now (202) and removes; another project sees none of it", async () => {
    const id = (await call("POST", "/v1/subscriptions", { url: `${FEED}?lifecycle`, format: "audio_m4a" })).json().data.id
    // The list is the aggregator's read model: the subscription shows up there within moments.
    await eventually(listedIds, (ids) => ids.includes(id), `${id} listed`)
    expect((await call("GET", "/v1/subscriptions", undefined, otherKey)).json().data).toEqual([])
    expect((await call("GET", `/v1/subscriptions/${id}`, undefined, otherKey)).statusCode).toBe(404)

    const paused = await call("POST", `/v1/subscriptions/${id}/pause`)
    expect(paused.statusCode, paused.body).toBe(200)
    expect(paused.json().data).toMatchObject({ status: "paused", next_check_at: null })
    const refused = await call("POST", `/v1/subscriptions/${id}/check`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error.code).toBe("subscription_paused")
    expect((await call("POST", `/v1/subscriptions/${id}/resume`)).json().data.status).toBe("active")
    const checked = await call("POST", `/v1/subscriptions/${id}/check`)
    expect(checked.statusCode).toBe(202)

    expect((await call("DELETE", `/v1/subscriptions/${id}`)).json().data).toEqual({ id, removed: true })
    const gone = await call("GET", `/v1/subscriptions/${id}`)
    expect(gone.statusCode).toBe(404)
    expect(gone.json().error.code).toBe("subscription_not_found")
    await eventually(listedIds, (ids) => !ids.includes(id), `${id} gone from the list`)
  })

  it("lists what the list read model holds (one document per subscription, never its stream), oldest first, removed ones left out", async () => {
    const { projectId: listedProject, key: listedKey } = await h.provisionKey()
    // As the aggregator's projection writes them: subscriptions whose streams this test never wrote.
    const newer = subscriptionView(listedProject, {
      createdAt: 2_000,
      lastCheck: { at: 3_000, found: 7, new: 2, filtered: 1, queued: 1 },
      nextCheckAt: 3_603_000,
      lastSeq: 4
    })
    const older = subscriptionView(listedProject, { createdAt: 1_000, paused: true })
    const removed = subscriptionView(listedProject, { createdAt: 500, removed: true })
    await h.gateway.run(Effect.forEach([newer, removed, older], (view) => Effect.flatMap(SubscriptionReadModel, (rm) => rm.put(view))))
    const listed = await call("GET", "/v1/subscriptions", undefined, listedKey)
    expect(listed.statusCode, listed.body).toBe(200)
    expect(listed.json().data).toMatchObject([
      { id: older.subscriptionId, status: "paused", next_check_at: null, last_check: null },
      {
        id: newer.subscriptionId,
        status: "active",
        filters: { title_contains: "live", published_after: "2026-01-01T00:00:00.000Z" },
        last_check: { at: "1970-01-01T00:00:03.000Z", found: 7, new: 2, filtered: 1, queued: 1 },
        next_check_at: "1970-01-01T01:00:03.000Z"
      }
    ])
  })
})
