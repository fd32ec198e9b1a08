export * from './payments.module';
export { PaymentReconciler } from './payment-reconciler';
