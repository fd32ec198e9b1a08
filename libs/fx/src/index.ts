export { FxModule } from './fx.module';
export { FxService, type FxQuote } from './fx.service';
export { parseCbrDaily, CbrXmlError, type CbrDaily, type CbrRate } from './cbr-xml';
export { usdItemPriceToRub, usdTokenPriceToRub } from './fx-convert';
