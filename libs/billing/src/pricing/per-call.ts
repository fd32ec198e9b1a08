/**
 * A flat price per call (tools called through the MCP gateway): the hold is the price, and so is
 * the charge of a call that succeeded; a refused or failed call is not charged.
 */
export function perCallHoldMicro(priceMicro: number): number {
  return Math.max(0, Math.round(priceMicro));
}

/** The charge of one call: the price when it succeeded, nothing otherwise. */
export function perCallChargeMicro(priceMicro: number, succeeded: boolean): number {
  return succeeded ? perCallHoldMicro(priceMicro) : 0;
}
