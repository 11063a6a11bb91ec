// Which failures say that a store did not answer (retried, never counted against a message) and which do not.
import { JetStreamApiError } from "@nats-io/jetstream"
import { ClosedConnectionError, NoRespondersError, RequestError, TimeoutError } from "@nats-io/nats-core"
import { describe, expect, it } from "vitest"
import { isUnavailable } from "./Unavailable.ts"

const socketError = (code: string) => Object.assign(new Error(`connect ${code}`), { code })

describe("isUnavailable", () => {
  it.each([
    ["a NATS timeout", new TimeoutError()],
    ["a closed connection", new ClosedConnectionError()],
    ["a request nobody answered", new RequestError("no responders", { cause: new NoRespondersError("$JS.API.x") })],
    ["JetStream without a leader", new JetStreamApiError({ code: 503, err_code: 10008, description: "jetstream temporarily unavailable" })],
    ["a refused socket", socketError("ECONNREFUSED")],
    ["MongoDB out of reach", Object.assign(new Error("server selection timed out"), { name: "MongoServerSelectionError" })],
    ["one wrapped in another", new Error("put failed", { cause: new TimeoutError() })]
  ])("%s is unavailable", (_label, error) => expect(isUnavailable(error)).toBe(true))

  it.each([
    ["a compare-and-set conflict", new JetStreamApiError({ code: 400, err_code: 10071, description: "wrong last sequence: 4" })],
    ["a message over the size limit", new Error("MAX_PAYLOAD_EXCEEDED")],
    ["a bug", new RangeError("Invalid time value")],
    ["a string", "store briefly down"],
    ["nothing", undefined]
  ])("%s is not", (_label, error) => expect(isUnavailable(error)).toBe(false))
})
