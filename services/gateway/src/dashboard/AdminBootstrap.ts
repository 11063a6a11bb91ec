// Creates the first dashboard user from DASHBOARD_ADMIN_EMAIL / DASHBOARD_ADMIN_PASSWORD at start, if it does not exist yet.
import { normalizeEmail } from "@mds/shared/ids/UserId"
import { MIN_PASSWORD_LENGTH } from "@mds/shared/keys/PasswordHash"
import { Effect, Layer, Option, Redacted } from "effect"
import { createUser, loadUser } from "../accounts/AccountCommands.ts"
import { DashboardConfig } from "./DashboardConfig.ts"

/**
 * An existing user is left alone (the password in the environment is not re-applied), so the variables can stay set.
 * Several gateways starting at once race on an empty subject; one wins, the others see UserAlreadyExists.
 */
export const AdminBootstrap = Layer.effectDiscard(
  Effect.gen(function* () {
    const { bootstrapAdmin } = yield* DashboardConfig
    if (Option.isNone(bootstrapAdmin)) return
    const email = normalizeEmail(bootstrapAdmin.value.email)
    const password = Redacted.value(bootstrapAdmin.value.password)
    if (password.length < MIN_PASSWORD_LENGTH) {
      return yield* Effect.logWarning(`DASHBOARD_ADMIN_PASSWORD is shorter than ${MIN_PASSWORD_LENGTH} characters; no admin created`)
    }
    if ((yield* loadUser(email)).user !== null) return
    yield* createUser(email, password).pipe(
      Effect.tap(() => Effect.logInfo("dashboard admin created").pipe(Effect.annotateLogs({ email }))),
      Effect.catchTag("UserAlreadyExists", () => Effect.void)
    )
  })
)
