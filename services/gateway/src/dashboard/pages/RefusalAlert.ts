// The API's refusal on a page: a person's headline, the API's message and code, and when trying again can work.
import { html } from "../html/Html.ts"
import type { Refusal } from "../ApiRefusal.ts"

/**
 * Focused when the page loads (after the form that caused it), announced as an alert. With Retry-After, the page's
 * script counts it down (outside the alert, so the count is not announced every second) and keeps the buttons marked
 * data-wait-for-countdown disabled until it reaches zero, then says so once.
 */
export const refusalAlert = (refusal: Refusal | null) =>
  refusal === null
    ? ""
    : html`<div class="alert error" role="alert" tabindex="-1" autofocus data-refusal="${refusal.code}">
<p><strong>${refusal.headline}</strong></p>
<p>${refusal.message} <span class="muted">(error code <code>${refusal.code}</code>)</span></p>
</div>${
        refusal.retryAfterSeconds === null
          ? ""
          : html`
<p class="countdown" data-countdown="${refusal.retryAfterSeconds}">You can try again in <span data-countdown-seconds>${refusal.retryAfterSeconds}</span> s.</p>
<p class="sr-only" role="status" data-countdown-done></p>`
      }`
