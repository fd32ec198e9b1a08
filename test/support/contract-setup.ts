/**
 * e2e setup (jest setupFilesAfterEnv): a test during which an in-test app answered with a 2xx body or
 * stream event that does not match docs/openapi.json fails, naming the operation and the members at
 * fault (see response-contract.ts).
 */
import { takeContractViolations } from './response-contract';

function failOnViolations(): void {
  const violations = takeContractViolations();
  if (violations.length)
    throw new Error(`responses that break the API contract (docs/openapi.json):\n  ${violations.join('\n  ')}`);
}

afterEach(failOnViolations);
afterAll(failOnViolations);
