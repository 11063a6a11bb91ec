// GET /v1/health lists the aggregator's stream followers (expiry, tally) beside the gateway's own, as the aggregator
// reports them over NATS, and drops them once no aggregator answers.
import { ConfigProvider, Effect, Layer, ManagedRuntime, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { type Harness, startHarness } from "../../../services/gateway/test/GatewayHarness.ts"
import { eventually } from "../../support/Eventually.ts"
import { freePort } from "../../support/NatsServer.ts"

let h: Harness
let aggregator: { dispose(): Promise<void> } | undefined

beforeAll(async () => {
  h = await startHarness()
  const env = { ...h.env, METRICS_PORT: String(await freePort()) }
  const runtime = ManagedRuntime.make(
    AggregatorLayer.pipe(
      Layer.provideMerge(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )
  await runtime.runPromise(Effect.void)
  aggregator = runtime
}, 60_000)

afterAll(async () => {
  await aggregator?.dispose()
  await h?.close()
})

const healthFollowers = async (): Promise<Record<string, string>> =>
  (await h.gateway.app.inject({ method: "GET", url: "/v1/health" })).json().data.followers

describe("GET /v1/health and the aggregator's followers", () => {
  it("lists the aggregator's expiry and tally followers (the subscription checks follow nothing), and drops them once the aggregator is gone", async () => {
    const seen = await eventually(
      healthFollowers,
      (followers) =>
        followers["aggregator.expiry_jobs"] === "following" &&
        followers["aggregator.expiry_media"] === "following" &&
        followers["aggregator.job_tally"] === "following",
      "the aggregator's followers in /v1/health"
    )
    // The subscription checks ask for each subscription's state: no view of theirs to report.
    expect(seen["aggregator.subscriptions"]).toBeUndefined()
    // The gateway's own are still there.
    expect(seen["keys"]).toBe("following")

    await aggregator?.dispose()
    aggregator = undefined
    await eventually(
      healthFollowers,
      (followers) => Object.keys(followers).every((name) => !name.startsWith("aggregator.")),
      "the aggregator's followers gone from /v1/health"
    )
  }, 60_000)
})
