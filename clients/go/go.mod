module github.com/till-payments/till/clients/go

go 1.21
