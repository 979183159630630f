/** JSON-compatible attribute map: exactly what a create request sends (see each kind). */
export type Attributes = { [key: string]: unknown };
