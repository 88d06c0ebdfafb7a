-- The agents' database beside the MCP servers' (POSTGRES_DB, reservas): run once, when the volume is new.
CREATE DATABASE tasks;
