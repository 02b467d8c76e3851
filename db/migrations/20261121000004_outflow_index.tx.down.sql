DROP INDEX IF EXISTS transactions_outflow;
