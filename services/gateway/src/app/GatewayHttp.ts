// The fastify server: answers each route by its bound steps (I/O on the shared runtime, under the request's span when
// traces are exported) and writes every failure as the error envelope.
import { BODY_LIMIT_BYTES } from "@mds/shared/api/Endpoint"
import { retryHints } from "@mds/shared/api/RetryableErrors"
import { maskSecrets } from "@mds/shared/runtime/SecretMasking"
import { Cause, Clock, Effect, Exit, LogLevel, type ManagedRuntime, Option, References, type Tracer } from "effect"
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify"
import { type ApiError, type ApiFailure, internalError, isServerSide, toApiError } from "../http/ErrorMapping.ts"
import { answerClientError } from "../http/ClientErrors.ts"
import { InvalidJson, MethodNotAllowed, PayloadTooLarge, RouteNotFound, UnsupportedMediaType } from "../http/GatewayErrors.ts"
import { endLiveStreams } from "../http/LiveStreams.ts"
import { newRequestId } from "../http/RequestIds.ts"
import { closeRequestSpan, openRequestSpan, recordRequestDuration } from "../http/RequestTelemetry.ts"
import type { Answer, Io, RouteInput, RouteReply } from "../http/Route.ts"
import { type GatewayServices, v1Routes } from "./v1Routes.ts"
import type { DashboardServices } from "../dashboard/DashboardRoutes.ts"
import { registerDashboard } from "../dashboard/DashboardHttp.ts"

const JSON_TYPE = "application/json; charset=utf-8"

const pathPattern = (path: string) =>
  new RegExp(
    `^${path
      .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
      .replace(/:[A-Za-z]+/g, "[^/]+")
      .replace(/\*/g, ".*")}$`
  )

/** How many of a route's segments are parameters or wildcards: the fewer, the more specific (a static segment wins). */
const looseness = (path: string) => path.split("/").filter((segment) => segment.startsWith(":") || segment.includes("*")).length

const routePatterns = v1Routes.map((route) => ({
  pattern: pathPattern(route.path),
  method: route.method,
  looseness: looseness(route.path)
}))

/**
 * Methods served on a path, HEAD included wherever GET is (fastify answers HEAD for GET routes). A path is the resource
 * of its most specific routes: /v1/jobs/events is the project's job stream, not a job called "events", so the methods
 * of /v1/jobs/:jobId are not its methods.
 */
export const allowedMethods = (path: string): ReadonlyArray<string> => {
  const matching = routePatterns.filter((route) => route.pattern.test(path))
  const tightest = Math.min(...matching.map((route) => route.looseness))
  const methods = new Set<string>()
  for (const route of matching) {
    if (route.looseness !== tightest) continue
    methods.add(route.method)
    if (route.method === "GET") methods.add("HEAD")
  }
  return [...methods]
}

const isJson = (contentType: string | undefined) => contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim())

/** Translates fastify's own failures (body parsing, limits) into the gateway's tagged errors. */
const fromFastifyError = (error: FastifyError, request: FastifyRequest): ApiFailure | null => {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new PayloadTooLarge({ limitBytes: request.routeOptions.bodyLimit ?? BODY_LIMIT_BYTES })
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new UnsupportedMediaType({ contentType: request.headers["content-type"] ?? "" })
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new InvalidJson({ message: "The request body is empty; send a JSON object." })
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new InvalidJson({ message: "The request body is not valid JSON." })
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new InvalidJson({ message: "The request body is not valid JSON." })
  }
  return null
}

/** 405 with the methods a known path allows, else 404. */
const routingFailure = (request: FastifyRequest): ApiFailure => {
  const path = request.url.split("?")[0] ?? ""
  const allow = allowedMethods(path)
  return allow.length > 0 ? new MethodNotAllowed({ method: request.method, allow }) : new RouteNotFound({ method: request.method, path })
}

export interface GatewayHttpOptions {
  /** Built from a layer whose construction cannot fail (Layer.orDie): construction failures are start-up failures. */
  readonly runtime: ManagedRuntime.ManagedRuntime<GatewayServices | DashboardServices, never>
}

export const buildGatewayHttp = ({ runtime }: GatewayHttpOptions): FastifyInstance => {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: newRequestId,
    requestIdHeader: false,
    exposeHeadRoutes: true,
    return503OnClosing: true,
    // Long path parameters reach the routes (a 5,000-character job id is simply not found) instead of fastify's 414.
    routerOptions: { maxParamLength: 16_384 },
    // Malformed paths (bad percent-encoding) are answered before routing: with the envelope too, as an unknown path.
    frameworkErrors: (_error, request, reply) => {
      const failure = new RouteNotFound({ method: request.method, path: "(malformed path)" })
      return sendError(request, reply.header("x-request-id", request.id), toApiError(failure))
    },
    // What node's HTTP parser refuses before a request exists (oversized headers) gets the envelope too.
    clientErrorHandler: answerClientError,
    // Valid JSON may carry "__proto__"/"constructor" keys: they are dropped (still never reach an object's prototype)
    // rather than failing a body the API's schema accepts.
    onProtoPoisoning: "remove",
    onConstructorPoisoning: "remove"
  })

  const log = (effect: Effect.Effect<void>) => runtime.runFork(effect)

  const sendError = (request: FastifyRequest, reply: FastifyReply, error: ApiError) =>
    reply
      .code(error.status)
      .headers(error.headers ?? {})
      .header("content-type", "application/json; charset=utf-8")
      // Messages may echo client input (a path, a job id): a key pasted there must not come back verbatim.
      .send({
        error: { code: error.code, message: maskSecrets(error.message), request_id: request.id, ...retryHints(error.code, error.headers) }
      })

  const sendReply = (reply: FastifyReply, result: RouteReply) => {
    switch (result._tag) {
      case "Json":
        return reply
          .code(result.status)
          .headers(result.headers ?? {})
          .send({ data: result.data })
      case "EncodedJson":
        return reply
          .code(result.status)
          .headers(result.headers ?? {})
          .type(JSON_TYPE)
          .send(result.body)
      case "File":
        return reply.code(200).headers(result.headers).send(result.body)
    }
  }

  // Server-sent event streams never end by themselves; closing must not wait for them.
  app.addHook("preClose", async () => endLiveStreams())

  // Callback-style hooks: an async hook costs a promise and a microtask per request.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id)
    done()
  })

  // One line per request is a Debug line (LOG_LEVEL=Debug): at Info, writing it cost more than answering a job read.
  let requestLines = false
  void runtime.runPromise(LogLevel.isEnabled("Debug")).then(
    (enabled) => (requestLines = enabled),
    () => undefined
  )
  app.addHook("onResponse", (request, reply, done) => {
    recordRequestDuration(request, reply)
    done()
    if (!requestLines) return
    log(
      Effect.logDebug("request").pipe(
        Effect.annotateLogs({
          request_id: request.id,
          method: request.method,
          path: request.url.split("?")[0],
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime)
        })
      )
    )
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A body on a path or method nobody serves (e.g. QUERY) is a routing answer, not a parsing one.
    if (request.is404) return sendError(request, reply, toApiError(routingFailure(request)))
    const failure = fromFastifyError(error, request)
    if (failure === null) {
      log(Effect.logError("unhandled request error", String(error.stack ?? error)).pipe(Effect.annotateLogs({ request_id: request.id })))
      return sendError(request, reply, internalError)
    }
    return sendError(request, reply, toApiError(failure))
  })

  app.setNotFoundHandler((request, reply) => sendError(request, reply, toApiError(routingFailure(request))))

  const services = runtime.runSync(Effect.context<GatewayServices>())
  const clock = runtime.runSync(Clock.Clock)
  // With traces exported, each request has its server span; the steps are the same either way.
  const tracing = runtime.runSync(References.TracerEnabled)

  /** I/O of one request: log lines name the request, and spans hang under its span when there is one. */
  const ioFor =
    (requestId: string, span: Tracer.Span | undefined): Io<GatewayServices> =>
    (effect) =>
      runtime.runPromiseExit(
        (span === undefined ? effect : Effect.withParentSpan(effect, span)).pipe(Effect.annotateLogs({ request_id: requestId }))
      )

  const sendAnswer = (request: FastifyRequest, reply: FastifyReply, answer: Answer) => {
    if (Exit.isSuccess(answer)) return sendReply(reply, answer.value)
    const failure = Cause.findErrorOption(answer.cause)
    const error = Option.isSome(failure) ? toApiError(failure.value) : internalError
    if (isServerSide(error)) {
      log(
        Effect.logError("request failed", Cause.pretty(answer.cause)).pipe(
          Effect.annotateLogs({ request_id: request.id, code: error.code })
        )
      )
    }
    return sendError(request, reply, error)
  }

  for (const route of v1Routes) {
    const serve = route.bind(services)
    app.route({
      method: route.method,
      url: route.path,
      ...(route.bodyLimitBytes === undefined ? {} : { bodyLimit: route.bodyLimitBytes }),
      handler: (request, reply) => {
        if (route.method === "POST" && route.bodyless !== true && !isJson(request.headers["content-type"])) {
          return sendError(request, reply, toApiError(new UnsupportedMediaType({ contentType: request.headers["content-type"] ?? "" })))
        }
        const input: RouteInput = {
          method: request.method,
          headers: request.headers,
          query: (request.query ?? {}) as Record<string, unknown>,
          params: (request.params ?? {}) as Record<string, string | undefined>,
          body: request.body,
          address: request.ip
        }
        const now = clock.currentTimeMillisUnsafe()
        const span = openRequestSpan(runtime, tracing, request, route.path)
        const settle = (settled: Answer) => {
          closeRequestSpan(span, settled, clock.currentTimeNanosUnsafe())
          return sendAnswer(request, reply, settled)
        }
        const answer = serve(input, ioFor(request.id, span), now)
        return answer instanceof Promise ? answer.then(settle) : settle(answer)
      }
    })
  }

  // A method a looser route serves on a static path (DELETE /v1/jobs/events, which DELETE /v1/jobs/:jobId would take
  // as a job called "events") answers 405 there, as the path's Allow says, instead of reaching the looser route.
  for (const path of new Set(v1Routes.filter((route) => looseness(route.path) === 0).map((route) => route.path))) {
    const allow = allowedMethods(path)
    const shadowed = new Set(
      routePatterns.filter((route) => route.pattern.test(path) && !allow.includes(route.method)).map((route) => route.method)
    )
    for (const method of shadowed) {
      app.route({ method, url: path, handler: (request, reply) => sendError(request, reply, toApiError(routingFailure(request))) })
    }
  }

  registerDashboard(app, runtime)
  return app
}
