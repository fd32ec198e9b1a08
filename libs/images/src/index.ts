export * from './images.module';
export * from './images.service';
export * from './image-pricing';
export * from './image-options';
