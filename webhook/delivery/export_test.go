package delivery

// WakeJob is wakeJob, for the tests of package delivery_test.
var WakeJob = wakeJob
