export * from './images.module';
export * from './images.service';
export * from './image-options';
