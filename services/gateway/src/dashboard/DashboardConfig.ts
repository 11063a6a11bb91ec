// Dashboard settings from the environment: session lifetime, whether cookies are Secure, the optional bootstrap admin,
// how many projects a user may create.
import { Config, Context, Effect, Layer, Option, type Redacted } from "effect"

export interface DashboardConfigShape {
  readonly sessionTtlMs: number
  /** True when PUBLIC_BASE_URL is https: cookies are then Secure and __Host- prefixed. */
  readonly secureCookies: boolean
  /** PUBLIC_BASE_URL's origin, where browsers reach the gateway (the bookmarklet's target); null when not set. */
  readonly publicOrigin: string | null
  readonly bootstrapAdmin: Option.Option<{ readonly email: string; readonly password: Redacted.Redacted<string> }>
  /** Projects a user may create in the dashboard unless the operator set their own limit; null: no limit. */
  readonly projectsPerUser: number | null
}

export class DashboardConfig extends Context.Service<DashboardConfig, DashboardConfigShape>()("mds/gateway/dashboard/DashboardConfig") {
  static readonly config = Config.all({
    sessionTtlSeconds: Config.Int("DASHBOARD_SESSION_TTL_SECONDS").pipe(Config.withDefault(12 * 3600)),
    publicBaseUrl: Config.String("PUBLIC_BASE_URL").pipe(Config.withDefault("")),
    adminEmail: Config.option(Config.String("DASHBOARD_ADMIN_EMAIL")),
    adminPassword: Config.option(Config.Redacted("DASHBOARD_ADMIN_PASSWORD")),
    projectsPerUser: Config.Int("DASHBOARD_PROJECTS_PER_USER").pipe(Config.withDefault(10))
  })

  static readonly layer = Layer.effect(
    DashboardConfig,
    Effect.gen(function* () {
      const config = yield* DashboardConfig.config
      // Set but empty (e.g. `VAR=` in a compose file) counts as not set.
      const adminEmail = Option.filter(config.adminEmail, (email) => email.trim() !== "")
      return DashboardConfig.of({
        sessionTtlMs: config.sessionTtlSeconds * 1000,
        secureCookies: config.publicBaseUrl.toLowerCase().startsWith("https:"),
        publicOrigin: URL.canParse(config.publicBaseUrl) ? new URL(config.publicBaseUrl).origin : null,
        bootstrapAdmin:
          Option.isSome(adminEmail) && Option.isSome(config.adminPassword)
            ? Option.some({ email: adminEmail.value, password: config.adminPassword.value })
            : Option.none(),
        // Each project has its own job slots and quotas: one user may not make as many as they like (0: no limit).
        projectsPerUser: config.projectsPerUser > 0 ? config.projectsPerUser : null
      })
    })
  )
}
