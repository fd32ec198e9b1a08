/** A failure that retrying cannot fix: the document fails with this code. */
export class PermanentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
