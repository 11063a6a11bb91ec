// A served route as data: method, path, and how it answers: plain steps over in-memory state, I/O the only async branch.
import type { Readable } from "node:stream"
import type { Endpoint } from "@mds/shared/api/Endpoint"
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import { Context, type Effect, Exit } from "effect"
import { ApiKeyAuth, type Principal } from "../auth/ApiKeyAuth.ts"
import type { HeaderValue } from "../auth/PresentedKey.ts"
import { RateLimitExceeded } from "../limits/LimitErrors.ts"
import { type RateQuota, RequestRateLimiter } from "../limits/RequestRateLimiter.ts"
import type { ApiFailure } from "./ErrorMapping.ts"
import { FailureWithHeaders } from "./FailureWithHeaders.ts"

export interface RouteInput {
  readonly method: string
  readonly headers: Readonly<Record<string, HeaderValue>>
  readonly query: Readonly<Record<string, unknown>>
  readonly params: Readonly<Record<string, string | undefined>>
  readonly body: unknown
  /** The client's address as the connection shows it (failed authentications are throttled per address). */
  readonly address?: string | undefined
}

export type RouteReply =
  | { readonly _tag: "Json"; readonly status: number; readonly data: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** A JSON body encoded beforehand (`{"data": ...}`), for answers served many times over. */
  | { readonly _tag: "EncodedJson"; readonly status: number; readonly body: string; readonly headers?: Readonly<Record<string, string>> }
  | {
      readonly _tag: "File"
      readonly body: Readable
      readonly headers: Readonly<Record<string, string>>
    }

export const json = (status: number, data: unknown, headers?: Readonly<Record<string, string>>): RouteReply =>
  headers === undefined ? { _tag: "Json", status, data } : { _tag: "Json", status, data, headers }

export const encodedJson = (status: number, body: string): RouteReply => ({ _tag: "EncodedJson", status, body })

/** A value now, or later when a step had to wait for I/O. */
export type Step<A> = A | Promise<A>

export const andThen = <A, B>(step: Step<A>, next: (value: A) => Step<B>): Step<B> =>
  step instanceof Promise ? step.then(next) : next(step)

/** Runs an Effect that does I/O (a cache miss, a store call) under the request's span and log annotations. */
export type Io<R> = <A, E>(effect: Effect.Effect<A, E, R>) => Promise<Exit.Exit<A, E>>

/** What a request gets: a reply, or a failure the gateway maps to the error envelope (a defect is a 500). */
export type Answer = Exit.Exit<RouteReply, ApiFailure>

/** A bound route: answers at `now`, synchronously unless a step needs I/O. */
export type Serve<R> = (input: RouteInput, io: Io<R>, now: number) => Step<Answer>

export interface Route<R> {
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: string
  /** A POST that takes no body (retry, pause, resume, check now) needs no JSON Content-Type; absent: it takes one. */
  readonly bodyless?: true
  /** The body's size limit, where it is not the gateway's default. */
  readonly bodyLimitBytes?: number
  /** Called once at start-up with the application's services: takes what its steps use synchronously. */
  readonly bind: (services: Context.Context<R>) => Serve<R>
}

/**
 * How an endpoint answers, in one shape: steps bound once to the application's services, run per request
 * synchronously unless a step needs I/O (a polled job is answered from memory nearly always, without running an
 * Effect). `P` is what the key check hands over: the principal, or null on a public endpoint.
 */
export interface StepHandler<R, P extends Principal | null = Principal> {
  readonly bind: (services: Context.Context<R>) => (input: RouteInput, principal: P, io: Io<R>, now: number) => Step<Answer>
}

export const stepHandler = <R, P extends Principal | null = Principal>(bind: StepHandler<R, P>["bind"]): StepHandler<R, P> => ({ bind })

/** A handler written as an Effect (most routes: they do I/O anyway): its one step runs it on the runtime. */
export const effectHandler = <R>(
  handle: (input: RouteInput, principal: Principal) => Effect.Effect<RouteReply, ApiFailure, R>
): StepHandler<R> => stepHandler(() => (input, principal, io) => io(handle(input, principal)))

/** The same for an endpoint anyone may call: it gets no principal. */
export const publicHandler = <R>(handle: (input: RouteInput) => Effect.Effect<RouteReply, ApiFailure, R>): StepHandler<R, null> =>
  stepHandler(() => (input, _principal, io) => io(handle(input)))

/** Serves a handler without a key check. */
const unkeyed =
  <R>(handler: StepHandler<R, null>): Route<R>["bind"] =>
  (services) => {
    const answer = handler.bind(services)
    return (input, io, now) => answer(input, null, io, now)
  }

/** A route outside the API's document (the /docs pages): anyone may call it. */
export const pageRoute = <R>(
  method: Route<R>["method"],
  path: string,
  handle: (input: RouteInput) => Effect.Effect<RouteReply, ApiFailure, R>
): Route<R> => ({ method, path, bind: unkeyed(publicHandler(handle)) })

/** A keyed route's reply carries the key's rate-limit headers. */
const withQuotaHeaders = (reply: RouteReply, quota: RateQuota): RouteReply =>
  reply._tag === "File" ? reply : { ...reply, headers: { ...quota.headers, ...reply.headers } }

/** So does its failure, once the request was counted. */
const failureWithQuota = (failure: ApiFailure, quota: RateQuota): ApiFailure =>
  Object.keys(quota.headers).length === 0 ? failure : new FailureWithHeaders({ failure, headers: quota.headers })

const withQuota = (answer: Answer, quota: RateQuota): Answer =>
  Exit.isSuccess(answer)
    ? Exit.succeed(withQuotaHeaders(answer.value, quota))
    : Exit.mapError(answer, (failure) => failureWithQuota(failure, quota))

interface Admitted {
  readonly principal: Principal
  readonly quota: RateQuota
}

const isPrincipal = (outcome: object): outcome is Principal => !("_tag" in outcome)

/**
 * The key check of every keyed route: the key from the followed directory (read from its stream when not there),
 * the route's scope, then one request counted toward the key's rate.
 */
const admission = (services: Context.Context<ApiKeyAuth | RequestRateLimiter>, scope: Scope | null) => {
  const auth = Context.get(services, ApiKeyAuth)
  const rates = Context.get(services, RequestRateLimiter)
  const count = (principal: Principal, now: number): Exit.Exit<Admitted, ApiFailure> => {
    const quota = rates.take(principal.keyId, now)
    return quota instanceof RateLimitExceeded ? Exit.fail(quota) : Exit.succeed({ principal, quota })
  }
  return <R>(input: RouteInput, io: Io<R>, now: number): Step<Exit.Exit<Admitted, ApiFailure>> => {
    const sources = { headers: input.headers, query: input.query, address: input.address }
    const known = auth.authenticateFromMemory(sources, scope, now)
    if (known === undefined) {
      return io(auth.authenticate(sources, scope)).then((found) =>
        Exit.isSuccess(found) ? count(found.value, now) : Exit.failCause(found.cause)
      )
    }
    return isPrincipal(known) ? count(known, now) : Exit.fail(known)
  }
}

/** What answers an endpoint: keyed endpoints' handlers also get the authenticated principal. */
export type Handler<E extends Endpoint> = E["access"] extends { readonly _tag: "Keyed" } ? StepHandler<any> : StepHandler<any, null>

/** The services a handler needs. */
export type HandlerServices<H> = H extends StepHandler<infer R, any> ? R : never

/** The endpoint served by its handler, behind the key check its access asks for. */
export const endpointRoute = <R>(
  endpoint: Endpoint,
  handler: StepHandler<R> | StepHandler<R, null>
): Route<R | ApiKeyAuth | RequestRateLimiter> => {
  const { method, path, access } = endpoint
  const bodyless = method === "POST" && endpoint.requestBody === undefined ? { bodyless: true as const } : {}
  const limit = endpoint.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: endpoint.bodyLimitBytes }
  // `Handler<E>` gives a public endpoint a handler without a principal and a keyed one a handler with it.
  if (access._tag === "Public") return { method, path, ...bodyless, ...limit, bind: unkeyed(handler as StepHandler<R, null>) }
  const keyed = handler as StepHandler<R>
  return {
    method,
    path,
    ...bodyless,
    ...limit,
    bind: (services) => {
      const admit = admission(services, access.scope)
      const answer = keyed.bind(services)
      return (input, io, now) =>
        andThen(admit(input, io, now), (admitted) =>
          Exit.isFailure(admitted)
            ? Exit.failCause(admitted.cause)
            : andThen(answer(input, admitted.value.principal, io, now), (answered) => withQuota(answered, admitted.value.quota))
        )
    }
  }
}
