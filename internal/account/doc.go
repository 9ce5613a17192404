// Package account is who may act on a workspace from the dashboard, and
// what they did: its owners (addresses that sign in) and its audit log.
// Storage keeps these records by the types declared here.
package account
