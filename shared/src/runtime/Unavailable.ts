// Whether a thrown error says that a store or the NATS server did not answer (down, unreachable, timed out), as opposed
// to a store that answered with a refusal or code that failed: the first is retried until it answers, the second is
// counted against the message that met it (services/aggregator/src/consumers/DurableConsumer.ts).

/** nats.js (core and JetStream) and the MongoDB driver name their "no answer" errors so. */
const UNAVAILABLE_NAMES = new Set([
  "TimeoutError",
  "ClosedConnectionError",
  "ConnectionError",
  "DrainingConnectionError",
  "NoRespondersError",
  "JetStreamNotEnabled",
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoServerSelectionError",
  "MongoNotConnectedError",
  "MongoTopologyClosedError",
  "MongoPoolClearedError"
])

/** Node's socket errors. */
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"])

/** JetStream answers 503 when it has no leader or cannot reach its peers (err_code 10008: temporarily unavailable). */
const JETSTREAM_UNAVAILABLE = 503
/** A JetStream request that timed out. */
const JETSTREAM_TIMEOUT = 408

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** Looks through an error and its causes (at most a few levels: a RequestError wraps a NoRespondersError). */
export const isUnavailable = (cause: unknown, depth = 0): boolean => {
  if (!isObject(cause) || depth > 4) return false
  const name = typeof cause["name"] === "string" ? cause["name"] : ""
  if (UNAVAILABLE_NAMES.has(name)) return true
  if (typeof cause["code"] === "string" && UNAVAILABLE_CODES.has(cause["code"])) return true
  if (name === "JetStreamApiError" || name === "JetStreamStatusError") {
    const status = typeof cause["status"] === "number" ? cause["status"] : cause["code"]
    if (status === JETSTREAM_UNAVAILABLE || status === JETSTREAM_TIMEOUT) return true
  }
  const labels = cause["errorLabels"] ?? cause["errorLabelSet"]
  if (labels instanceof Set && (labels.has("RetryableWriteError") || labels.has("ResetPool"))) return true
  if (name === "RequestError" && typeof cause["isNoResponders"] === "function" && (cause["isNoResponders"] as () => boolean).call(cause)) {
    return true
  }
  return isUnavailable(cause["cause"], depth + 1)
}
