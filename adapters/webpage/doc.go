// Package webpage holds what the server-rendered page sets (the store, the console) share: the
// embedded static files served under content-hashed names, so that a page may let browsers keep
// them a year (a file's name changes with its content); a page rendered whole before it is
// answered, so that a template that fails answers a plain 500 rather than half a page; and the
// pages' cookies, which scripts never read and other sites' forms never send.
package webpage
