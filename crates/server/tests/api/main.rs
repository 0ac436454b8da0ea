//! The API test suite: one binary, the real server on a random port per test. Set
//! `REGARD_TEST_DATABASE_URL=postgres://...` to run the same tests on PostgreSQL.

#[path = "../support/postgres.rs"]
mod postgres;

mod admin;
mod aois;
mod assistant;
mod benchmarks;
#[path = "../support/client.rs"]
mod client;
mod code_bursts;
mod connections;
mod creatives;
mod exports;
#[path = "../support/fixtures.rs"]
mod fixtures;
mod flow;
mod health_and_web;
mod heatmaps;
mod helpers;
mod import;
mod jobs;
mod location_lists;
mod locations;
mod logout;
mod mail_links;
mod media;
mod metrics;
mod mfa;
mod notify;
mod oauth;
mod openapi;
mod passwordless;
mod plans;
mod refresh;
mod reports;
mod shares;
mod sign_in;
mod signup;
mod simulations;
#[path = "../support/sse.rs"]
mod sse;
mod startup;
mod sweep;
mod unavailable;
mod user;
mod viewing;
mod workspaces;
