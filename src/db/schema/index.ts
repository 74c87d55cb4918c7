export * from './users';
export * from './organizations';
export * from './workshops';
export * from './cards';
export * from './activity';
export * from './collab';
export * from './limits';
export * from './api-tokens';
