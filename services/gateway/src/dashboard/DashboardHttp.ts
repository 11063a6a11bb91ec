// Mounts the dashboard on the gateway's fastify app: form parsing, security headers, static assets, and the route runner.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Cause, Effect, Exit, type ManagedRuntime, Option } from "effect"
import type { FastifyInstance, FastifyReply } from "fastify"
import { toDashboardError } from "./DashboardErrors.ts"
import { parseFormBody } from "./DashboardForms.ts"
import type { DashboardInput, DashboardReply } from "./DashboardRoute.ts"
import { dashboardRoutes, type DashboardServices } from "./DashboardRoutes.ts"
import { errorPage } from "./pages/AccessPages.ts"
import { signInPath } from "./session/ReturnPath.ts"

const FORM_LIMIT_BYTES = 16 * 1024

/**
 * No inline script or style anywhere (so the CSP needs no 'unsafe-inline'), no framing, no referrer to other sites
 * (URLs hold ids; "same-origin" rather than "no-referrer", which would make browsers send Origin: null and fail the
 * CSRF origin check), and nothing cached: a page may hold a key's secret the one time it is shown. Images alone may
 * come from other sites: media thumbnails are the platforms' own pictures (loaded without a referrer).
 */
export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: http:; connect-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()"
}

const asset = (file: string) => readFileSync(join(import.meta.dirname, "assets", file))

const ASSETS: ReadonlyArray<readonly [string, string, Buffer]> = [
  ["/dashboard/assets/dashboard.js", "text/javascript; charset=utf-8", asset("dashboard.js")],
  ["/dashboard/assets/download.js", "text/javascript; charset=utf-8", asset("download.js")],
  ["/dashboard/assets/dashboard.css", "text/css; charset=utf-8", asset("dashboard.css")],
  ["/dashboard/assets/icon.svg", "image/svg+xml", asset("icon.svg")],
  ["/dashboard/assets/icon-192.png", "image/png", asset("icon-192.png")],
  ["/dashboard/assets/icon-512.png", "image/png", asset("icon-512.png")],
  // The installable app's manifest, with the share target (outside /assets/: its scope is the whole dashboard).
  ["/dashboard/manifest.webmanifest", "application/manifest+json", asset("manifest.webmanifest")]
]

const send = (reply: FastifyReply, result: DashboardReply) => {
  switch (result._tag) {
    case "Page":
      if (result.cookies !== undefined) reply.header("set-cookie", [...result.cookies])
      if (result.headers !== undefined) reply.headers(result.headers)
      return reply.code(result.status).type("text/html; charset=utf-8").send(result.body.value)
    case "Redirect":
      if (result.cookies !== undefined) reply.header("set-cookie", [...result.cookies])
      return reply.code(303).header("location", result.location).send()
    case "Stream":
      return reply.code(200).headers(result.headers).send(result.body)
  }
}

export const registerDashboard = (app: FastifyInstance, runtime: ManagedRuntime.ManagedRuntime<DashboardServices, never>) => {
  const log = (effect: Effect.Effect<void>) => runtime.runFork(effect)

  // An encapsulated plugin: form bodies and these headers apply to dashboard routes only, never to /v1.
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: FORM_LIMIT_BYTES },
      (_request, body, done) => done(null, parseFormBody(String(body)))
    )
    scope.addHook("onSend", async (_request, reply, payload) => {
      reply.headers(DASHBOARD_SECURITY_HEADERS)
      if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store")
      return payload
    })

    for (const [url, type, body] of ASSETS) {
      scope.get(url, async (_request, reply) => reply.type(type).header("cache-control", "no-cache").send(body))
    }

    for (const route of dashboardRoutes) {
      scope.route({
        method: route.method,
        url: route.path,
        handler: async (request, reply) => {
          const input: DashboardInput = {
            method: request.method,
            headers: request.headers,
            params: (request.params ?? {}) as Record<string, string | undefined>,
            query: (request.query ?? {}) as Record<string, unknown>,
            body: request.body ?? {},
            address: request.ip
          }
          const exit = await runtime.runPromiseExit(route.run(input))
          if (Exit.isSuccess(exit)) return send(reply, exit.value)
          const failure = Cause.findErrorOption(exit.cause)
          const tag = Option.isSome(failure) ? ((failure.value as { readonly _tag?: string })._tag ?? "") : ""
          if (tag === "NotSignedIn" && route.json !== true) {
            // Sign-in returns to the page asked for (only a GET: a form's POST is not repeated).
            return send(reply, { _tag: "Redirect", location: request.method === "GET" ? signInPath(request.url) : "/dashboard/login" })
          }
          const error = Option.isSome(failure)
            ? toDashboardError(failure.value as { readonly _tag: string })
            : { status: 500, title: "Something went wrong", message: "An internal error occurred." }
          if (error.status >= 500) {
            // Causes carry ids and storage messages, never form fields: passwords and secrets stay out of the log.
            log(
              Effect.logError("dashboard request failed", Cause.pretty(exit.cause)).pipe(
                Effect.annotateLogs({ request_id: request.id, path: route.path })
              )
            )
          }
          if (route.json === true) {
            return reply
              .code(error.status)
              .type("application/json; charset=utf-8")
              .send({ error: { message: error.message } })
          }
          const page = { _tag: "Page", status: error.status, body: errorPage({ viewer: null, ...error }) } as const
          return send(reply, error.headers === undefined ? page : { ...page, headers: error.headers })
        }
      })
    }
  })
}
