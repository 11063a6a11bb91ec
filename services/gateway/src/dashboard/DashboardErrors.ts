// Failures of the dashboard's HTTP edge, and how each one is shown (the dashboard answers HTML, not /v1 error codes).
import { Schema } from "effect"
import { type ApiFailure, internalError, toApiError } from "../http/ErrorMapping.ts"

/** No valid session: the browser is sent to the sign-in page. */
export class NotSignedIn extends Schema.TaggedError<NotSignedIn>()("NotSignedIn", {}) {}

/** A form without the session's (or the sign-in page's) CSRF token, or from another origin. */
export class CsrfRejected extends Schema.TaggedError<CsrfRejected>()("CsrfRejected", {}) {}

export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {}) {}

/** Too many failed sign-ins for this account or from this address: no password is checked until Retry-After. */
export class SignInThrottled extends Schema.TaggedError<SignInThrottled>()("SignInThrottled", {
  retryAfterSeconds: Schema.Number
}) {}

/** A form field the user must correct; the message is shown next to the form. */
export class InvalidForm extends Schema.TaggedError<InvalidForm>()("InvalidForm", { message: Schema.String }) {}

export type DashboardFailure = NotSignedIn | CsrfRejected | InvalidCredentials | SignInThrottled | InvalidForm | ApiFailure

export interface DashboardError {
  readonly status: number
  readonly title: string
  readonly message: string
  readonly headers?: Readonly<Record<string, string>>
}

export const toDashboardError = (failure: DashboardFailure | { readonly _tag: string }): DashboardError => {
  switch (failure._tag) {
    case "NotSignedIn":
      return { status: 401, title: "Signed out", message: "Sign in to continue." }
    case "CsrfRejected":
      return {
        status: 403,
        title: "Form expired",
        message: "This form has expired or did not come from the dashboard. Reload the page and try again."
      }
    case "InvalidCredentials":
      return { status: 401, title: "Sign in", message: "The email or the password is wrong." }
    case "SignInThrottled": {
      const seconds = (failure as SignInThrottled).retryAfterSeconds
      return {
        status: 429,
        title: "Too many attempts",
        message: `Too many failed sign-ins. Try again in ${seconds} seconds.`,
        headers: { "retry-after": String(seconds) }
      }
    }
    case "InvalidForm":
      return { status: 400, title: "Check the form", message: (failure as InvalidForm).message }
    // A project or key the user may not see is reported like one that does not exist.
    case "ProjectNotFound":
    case "ApiKeyNotFound":
    case "RouteNotFound":
      return { status: 404, title: "Not found", message: "There is nothing here, or you are not a member of this project." }
    case "UserNotFound":
      return { status: 400, title: "Check the form", message: "No dashboard user has this email; the operator creates users." }
  }
  // Anything else is mapped as /v1 would map it (storage down: 503); an unknown failure is an internal error.
  const api = toApiError(failure as ApiFailure) ?? internalError
  return api.status >= 500
    ? { status: api.status, title: "Temporarily unavailable", message: api.message }
    : { status: api.status, title: "Something went wrong", message: api.message }
}
