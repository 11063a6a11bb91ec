// The "deliver into a destination" part of the dashboard's forms (a download, a playlist's batch, a subscription), as
// typed, and as the /v1 bodies' `destination` spells it.

export interface DestinationFormValues {
  /** A destination of the project ("": keep the file on the service). */
  readonly destination: string
  /** The path template inside it ("": the default). */
  readonly path: string
}

/** The /v1 body's `destination` for what the form says: nothing without a destination, no `path` for the default. */
export const destinationBodyOf = (values: DestinationFormValues) =>
  values.destination === "" ? {} : { destination: { id: values.destination, ...(values.path === "" ? {} : { path: values.path }) } }
