import Foundation
import Testing
@testable import PlumbConfiguration

let boardsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("boards").path

@Suite struct BoardTests {
    let catalog: BoardCatalog

    init() throws { catalog = try BoardCatalog.load(directory: boardsDirectory) }

    @Test func everyBoardFileLoads() {
        #expect(catalog.ids == knownBoards)
    }

    /// Model strings as the firmware writes them into /proc/device-tree/model (NUL-terminated).
    @Test(arguments: [
        ("Raspberry Pi 3 Model B Rev 1.2", "rpi3"),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", "rpi3"),
        ("Raspberry Pi 4 Model B Rev 1.4", "rpi4"),
        ("Raspberry Pi 4 Model B Rev 1.5\0", "rpi4"),
        ("Raspberry Pi 400 Rev 1.0", "rpi400"),
        ("Raspberry Pi 5 Model B Rev 1.0", "rpi5"),
        ("Raspberry Pi 5 Model B Rev 1.1\0", "rpi5"),
        ("Raspberry Pi 500 Rev 1.0", "rpi500"),
        ("Raspberry Pi Zero 2 W Rev 1.0", "rpizero2w"),
        ("Raspberry Pi Compute Module 4 Rev 1.0", "cm4"),
        ("Raspberry Pi Compute Module 5 Rev 1.0", "cm5"),
        ("Raspberry Pi Compute Module 5 Lite Rev 1.0", "cm5"),
    ])
    func detectsRealModelStrings(_ model: String, _ id: String) {
        #expect(catalog.detect(model: model)?.id == id)
    }

    @Test(arguments: ["Raspberry Pi Zero W Rev 1.1", "Raspberry Pi 2 Model B Rev 1.1", "Raspberry Pi Compute Module 4S Rev 1.0",
                      "Raspberry Pi 40", "Pine64 RockPro64 v2.1", ""])
    func nearMissesAreNotDetected(_ model: String) {
        #expect(catalog.detect(model: model) == nil)
    }

    @Test func resolveFallsBackToGenericAndHonoursOverrides() throws {
        let unknown = try catalog.resolve(override: nil, model: "Pine64 RockPro64 v2.1\0")
        #expect(unknown.board.id == "generic")
        #expect(unknown.explanation == "generic (the device-tree model \"Pine64 RockPro64 v2.1\" matches no board file)")
        let none = try catalog.resolve(override: "auto", model: nil)
        #expect(none.explanation == "generic (this machine has no device-tree model)")
        let forced = try catalog.resolve(override: "rpi5", model: "Raspberry Pi 4 Model B Rev 1.4")
        #expect(forced.board.id == "rpi5")
        #expect(forced.reason == .override)
        #expect(throws: BoardSelectionError.unknownBoard("pi5", known: knownBoards)) {
            try catalog.resolve(override: "pi5", model: nil)
        }
    }

    @Test func piFiveFamilyFindsItsChipByLabel() throws {
        for id in ["rpi5", "rpi500", "cm5"] {
            #expect(catalog.board(id: id)?.interrupt == InterruptLocation(chip: .label("pinctrl-rp1"), line: .name("GPIO17")))
        }
        #expect(catalog.board(id: "rpi4")?.interrupt?.chip == .label("pinctrl-bcm2711"))
        #expect(catalog.board(id: "rpizero2w")?.interrupt?.chip == .label("pinctrl-bcm2835"))
        #expect(catalog.board(id: "generic")?.interrupt == nil)
        for board in catalog.boards {
            #expect(board.i2cBus == "/dev/i2c-1")
            #expect(board.imuAddress.rawValue == 0x68)
        }
    }

    @Test func aBadBoardFileNamesTheKey() {
        #expect(throws: ConfigurationError(file: "b.json", position: JSONPosition(line: 1, column: 41), keyPath: "i2c.bus",
                                           message: "\"i2c-1\" is not an absolute path; write it starting with /")) {
            try Board.decode(#"{"id": "x", "name": "X", "i2c": {"bus": "i2c-1"}}"#, file: "b.json")
        }
        #expect(throws: ConfigurationError(file: "b.json", position: JSONPosition(line: 1, column: 8), keyPath: "id",
                                           message: "\"Pi 4\" may hold only lowercase letters, digits and '-'")) {
            try Board.decode(#"{"id": "Pi 4", "name": "X", "i2c": {"bus": "/dev/i2c-1"}}"#, file: "b.json")
        }
    }
}

@Suite struct GPIOChipSelectorTests {
    /// "gpiochip0" and "0" name a device, as gpiodetect lists it; they were taken for labels and
    /// shown as "label gpiochip0".
    @Test func aDeviceNameOrNumberIsNoLabel() {
        #expect(GPIOChipSelector("gpiochip0") == .device("gpiochip0"))
        #expect(GPIOChipSelector("12") == .device("12"))
        #expect(GPIOChipSelector("/dev/gpiochip4") == .path("/dev/gpiochip4"))
        #expect(GPIOChipSelector("pinctrl-rp1") == .label("pinctrl-rp1"))
        #expect(GPIOChipSelector("gpiochip") == .label("gpiochip"))
        #expect(GPIOChipSelector("gpiochip0a") == .label("gpiochip0a"))
        #expect(InterruptLocation(chip: GPIOChipSelector("gpiochip0"), line: .offset(17)).description == "line 17 on gpiochip0")
        #expect(InterruptLocation(chip: GPIOChipSelector("0"), line: .name("GPIO17")).description == "GPIO17 on chip 0")
        #expect(InterruptLocation(chip: GPIOChipSelector("pinctrl-rp1"), line: .name("GPIO17")).description == "GPIO17 on label pinctrl-rp1")
        // libgpiod's lookup gets the text as written.
        for text in ["gpiochip0", "0", "/dev/gpiochip4", "pinctrl-rp1"] { #expect(GPIOChipSelector(text).text == text) }
    }
}
