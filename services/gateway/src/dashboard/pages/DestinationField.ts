// The "deliver into a destination" fields of the dashboard's forms (a download, a playlist's batch, a subscription):
// the project's destinations to choose from and the path template, named as the /v1 bodies' `destination` is.
import { DEFAULT_PATH_TEMPLATE } from "@mds/shared/domain/delivery/PathTemplate"
import type { DestinationFormValues } from "../DestinationForm.ts"
import { html } from "../html/Html.ts"

/** A destination a form offers: its id and its name. */
export interface DestinationChoice {
  readonly destinationId: string
  readonly name: string
}

const option = (value: string, label: string, chosen: string) =>
  html`<option value="${value}"${value === chosen ? html` selected` : ""}>${label}</option>`

/** The select (`destination`: "" keeps the file on the service) and the template (`path`: "" is the default). */
export const destinationFields = (
  idPrefix: string,
  destinations: ReadonlyArray<DestinationChoice>,
  chosen: DestinationFormValues
) => html`<label for="${idPrefix}-destination">Destination</label>
<select id="${idPrefix}-destination" name="destination">${option("", "none: keep the files on the service", chosen.destination)}${destinations.map((d) => option(d.destinationId, d.name, chosen.destination))}</select>
<label for="${idPrefix}-path">Path template (default ${DEFAULT_PATH_TEMPLATE})</label>
<input id="${idPrefix}-path" name="path" maxlength="512" value="${chosen.path}" autocomplete="off" spellcheck="false">`
