// Limits on JSON every reader of it applies alike: the HTTP body parser and the streaming upload scan.

/** Deepest nesting accepted in a JSON body: real requests nest 2-3 levels (an `id` or `context` a few more). */
export const MAX_JSON_DEPTH = 32
